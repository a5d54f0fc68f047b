"""kafka-python as an independent peer for kafka-wire's interop tests.

Reads JSON lines on stdin, answers one JSON line per request on stdout:

  {"op": "versions", "api": NAME}
      -> {"min": m, "max": n}            kafka-python's valid versions of NAME
  {"op": "generate", "api": NAME, "version": v, "seed": s}
      -> {"hex": FRAME, "values": {...}, "correlation_id": c, "client_id": id}
         random field values, encoded by kafka-python as a whole frame (size, header, body)
  {"op": "decode", "api": NAME, "version": v, "hex": FRAME}
      -> {"values": {...}, "correlation_id": c, "client_id": id, "reencoded_equal": bool}
         FRAME decoded by kafka-python (and encoded again, to check nothing was left over)

NAME is a kafka-python class name such as "TxnOffsetCommitRequest". Values are dicts keyed by
kafka-python's field names, holding only the fields present at the version.

Generic operations, over every request and response class kafka-python declares:

  {"op": "list"}
      -> {"apis": [{"name": NAME, "key": k, "kind": "request"|"response", "min": m, "max": n}]}
  {"op": "gen_frame", "api": NAME, "version": v, "seed": s}
      -> {"hex": FRAME, "values": {...}, "correlation_id": c, "client_id": id}
         random values in every field the version has (tagged ones at random), as whole frame
  {"op": "decode_frame", "api": NAME, "version": v, "hex": FRAME}
      -> {"values": {...}, "correlation_id": c, "client_id": id, "reencoded_hex": HEX}

  {"op": "gen_data", "api": NAME, "version": v, "seed": s}
      -> {"hex": BYTES, "values": {...}}
  {"op": "decode_data", "api": NAME, "hex": BYTES}
      -> {"values": {...}, "version": v, "reencoded_hex": HEX}
         the same for the consumer protocol payloads (ConsumerProtocolSubscription and
         ConsumerProtocolAssignment), which travel with an int16 version in front

Their values are keyed by Kafka's JSON field names (every field the version has, tagged ones
included, at their defaults when absent); uuids, bytes and records as lowercase hex.
"""
import json
import random
import sys
import uuid

from kafka.protocol import producer  # noqa: F401 (registers the classes)
from kafka.protocol import admin, consumer, metadata, sasl  # noqa: F401 (same)
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment, ConsumerProtocolSubscription,
)
from kafka.protocol.producer import (
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse,
    TxnOffsetCommitRequest, TxnOffsetCommitResponse,
)

APIS = {c.__name__: c for c in (
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse,
    TxnOffsetCommitRequest, TxnOffsetCommitResponse,
)}



def _subclasses(c):
    for s in c.__subclasses__():
        yield s
        yield from _subclasses(s)


# Every primary (not per-version) request and response class.
ALL_APIS = {c.__name__: c for c in _subclasses(ApiMessage)
            if getattr(c, '_class_version', 1) is None and getattr(c, '_json', None)
            and c._json.get('type') in ('request', 'response')}

INT_RANGES = {
    'int8': (-2**7, 2**7 - 1), 'int16': (-2**15, 2**15 - 1),
    'int32': (-2**31, 2**31 - 1), 'int64': (-2**63, 2**63 - 1),
}
ALPHABET = 'abcxyz-_.09 éß漢🦀'


def present(field, version):
    return field.for_version_q(version) and not field.tagged_field_q(version)


def rand_string(rng):
    return ''.join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))


def rand_simple(rng, type_str, nullable):
    if nullable and rng.random() < 0.25:
        return None
    if type_str in INT_RANGES:
        lo, hi = INT_RANGES[type_str]
        return rng.choice([lo, hi, 0, -1, rng.randint(lo, hi)])
    if type_str == 'bool':
        return rng.random() < 0.5
    if type_str == 'string':
        return rand_string(rng)
    if type_str == 'uuid':
        return uuid.UUID(int=rng.getrandbits(128))
    raise ValueError('no generator for ' + type_str)


def rand_struct(rng, struct, data_class, version, top=False):
    vals = {'version': version} if top else {}
    for f in struct._fields:
        if not present(f, version):
            continue
        nullable = f.nullable_for_version_q(version)
        if f.is_struct_array():
            vals[f.name] = [rand_struct(rng, f.array_of, f.data_class, version)
                            for _ in range(rng.randint(0, 3))]
        elif f.is_array():
            vals[f.name] = [rand_simple(rng, f.array_of.type_str, False)
                            for _ in range(rng.randint(0, 4))]
        elif f.is_struct():
            vals[f.name] = rand_struct(rng, f, f.data_class, version)
        else:
            vals[f.name] = rand_simple(rng, f.type_str, nullable)
    return data_class(**vals)


def dump(obj, struct, version):
    out = {}
    for f in struct._fields:
        if not present(f, version):
            continue
        v = getattr(obj, f.name)
        if f.is_struct_array():
            out[f.name] = None if v is None else [dump(x, f.array_of, version) for x in v]
        elif f.is_struct():
            out[f.name] = dump(v, f, version)
        elif isinstance(v, uuid.UUID):
            out[f.name] = str(v)
        else:
            out[f.name] = v
        if isinstance(out[f.name], list) and f.is_array() and not f.is_struct_array():
            out[f.name] = [str(x) if isinstance(x, uuid.UUID) else x for x in out[f.name]]
    return out


def gen_simple(rng, type_str):
    if type_str in INT_RANGES:
        lo, hi = INT_RANGES[type_str]
        return rng.choice([lo, hi, 0, -1, 1, rng.randint(lo, hi)])
    if type_str == 'uint16':
        return rng.choice([0, 1, 65535, rng.randint(0, 65535)])
    if type_str == 'float64':
        # Dyadic values, exact in JSON both ways.
        return rng.choice([0.0, 1.5, -0.25, 1024.125, -3.0])
    if type_str in ('bytes', 'records'):
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 9)))
    if type_str == 'bitfield':
        # kafka-python's view of an int32 of authorized-operation bits: a set of bit numbers,
        # None for Kafka's default -2147483648 (bit 31 alone).
        return rng.choice([None, set(), {3, 4, 5}, set(rng.sample(range(32), rng.randint(1, 6)))])
    return rand_simple(rng, type_str, False)


def gen_struct(rng, struct, data_class, version, in_tagged=False, top=False):
    """Random values in every field the version has; tagged fields at random. Inside a tagged
    field no tagged field is set: kafka-python writes a tagged value's own tagged sections
    empty."""
    vals = {'version': version} if top else {}
    for f in struct._fields:
        if not f.for_version_q(version):
            continue
        tagged = f.tagged_field_q(version)
        if tagged and (in_tagged or rng.random() < 0.3):
            continue
        if f.nullable_for_version_q(version) and rng.random() < 0.25:
            vals[f.name] = None
            continue
        inner = in_tagged or tagged
        if f.is_struct_array():
            vals[f.name] = [gen_struct(rng, f.array_of, f.data_class, version, inner)
                            for _ in range(rng.randint(0, 3))]
        elif f.is_array():
            vals[f.name] = [gen_simple(rng, f.array_of.type_str) for _ in range(rng.randint(0, 4))]
        elif f.is_struct():
            vals[f.name] = gen_struct(rng, f, f.data_class, version, inner)
            # kafka-python writes a tagged struct whenever it is not None, even when every
            # field holds its default; Java's encoder leaves such a field out, and so does
            # kafka-wire's when it re-encodes what it read (see interop/README.md), so the
            # bytes would differ. Draw again until it differs.
            default = jdump(f.data_class(), f, version)
            tries = 0
            while tagged and jdump(vals[f.name], f, version) == default and tries < 20:
                vals[f.name] = gen_struct(rng, f, f.data_class, version, inner)
                tries += 1
        else:
            vals[f.name] = gen_simple(rng, f.type_str)
    return data_class(**vals)


def jsimple(type_str, x):
    if type_str == 'bitfield':
        bits = sum(1 << b for b in (x if x is not None else {31}))
        return bits - 2**32 if bits >= 2**31 else bits
    if x is None:
        return None
    if type_str == 'uuid':
        return (x if isinstance(x, uuid.UUID) else uuid.UUID(x)).hex
    if type_str in ('bytes', 'records'):
        return bytes(x).hex()
    return x


def jdump(obj, struct, version):
    """Every field the version has, keyed by its JSON name."""
    out = {}
    for f in struct._fields:
        if not f.for_version_q(version):
            continue
        v = getattr(obj, f.name)
        if v is None and f.type_str != 'bitfield':
            out[f._name] = None
        elif f.is_struct_array():
            out[f._name] = [jdump(x, f.array_of, version) for x in v]
        elif f.is_struct():
            out[f._name] = jdump(v, f, version)
        elif f.is_array():
            out[f._name] = [jsimple(f.array_of.type_str, x) for x in v]
        else:
            out[f._name] = jsimple(f.type_str, v)
    return out


def header_info(msg):
    h = msg.header
    return {'correlation_id': h.correlation_id,
            'client_id': getattr(h, 'client_id', None) if msg.is_request() else None}


def handle(req):
    if req['op'] == 'list':
        return {'apis': [{'name': n, 'key': c.API_KEY, 'kind': c._json['type'],
                          'min': c._valid_versions[0], 'max': c._valid_versions[1]}
                         for n, c in sorted(ALL_APIS.items())]}
    if req['op'] in ('gen_frame', 'decode_frame'):
        return handle_generic(req)
    if req['op'] in ('gen_data', 'decode_data'):
        return handle_data(req)
    cls = APIS[req['api']]
    if req['op'] == 'versions':
        return {'min': cls.min_version, 'max': cls.max_version}
    version = req['version']
    if req['op'] == 'generate':
        rng = random.Random(req['seed'])
        msg = rand_struct(rng, cls._struct, cls, version, top=True)
        client_id = rng.choice([None, '', 'kafka-python', rand_string(rng)])
        msg.with_header(correlation_id=rng.randint(-2**31, 2**31 - 1), client_id=client_id)
        # The version is the message's own (set at construction): passing it to encode() would
        # also write it into the header, which responses do not have.
        frame = msg.encode(header=True, framed=True)
        out = {'hex': bytes(frame).hex(), 'values': dump(msg, cls._struct, version)}
        out.update(header_info(msg))
        return out
    if req['op'] == 'decode':
        data = bytes.fromhex(req['hex'])
        msg = cls.decode(data, version=version, header=True, framed=True)
        again = msg.encode(header=True, framed=True)
        out = {'values': dump(msg, cls._struct, version), 'reencoded_equal': bytes(again) == data}
        out.update(header_info(msg))
        return out
    raise ValueError('unknown op ' + req['op'])


def handle_generic(req):
    cls = ALL_APIS[req['api']]
    version = req['version']
    if req['op'] == 'gen_frame':
        rng = random.Random(req['seed'])
        msg = gen_struct(rng, cls._struct, cls, version, top=True)
        client_id = rng.choice([None, '', 'kafka-python', rand_string(rng)])
        msg.with_header(correlation_id=rng.randint(-2**31, 2**31 - 1), client_id=client_id)
        frame = msg.encode(header=True, framed=True)
        out = {'hex': bytes(frame).hex(), 'values': jdump(msg, cls._struct, version)}
    else:
        data = bytes.fromhex(req['hex'])
        msg = cls.decode(data, version=version, header=True, framed=True)
        again = msg.encode(header=True, framed=True)
        out = {'values': jdump(msg, cls._struct, version), 'reencoded_hex': bytes(again).hex()}
    out.update(header_info(msg))
    return out


DATA = {c.__name__: c for c in (ConsumerProtocolSubscription, ConsumerProtocolAssignment)}


def handle_data(req):
    cls = DATA[req['api']]
    if req['op'] == 'gen_data':
        version = req['version']
        rng = random.Random(req['seed'])
        msg = gen_struct(rng, cls._struct, cls, version, top=True)
        return {'hex': bytes(msg.encode(version=version)).hex(),
                'values': jdump(msg, cls._struct, version)}
    data = bytes.fromhex(req['hex'])
    version = int.from_bytes(data[:2], 'big', signed=True)
    read_as = min(version, cls.max_version)
    msg = cls.decode(data)
    return {'values': jdump(msg, cls._struct, read_as), 'version': version,
            'reencoded_hex': data[:2].hex() + bytes(cls._struct.encode(msg, version=read_as)).hex()}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            resp = handle(json.loads(line))
        except Exception as e:  # reported to the Rust side, which fails the test with it
            resp = {'error': '%s: %s' % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(resp, ensure_ascii=False) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
