"""kafka-python's record builders and readers as an independent peer for kafka-wire's
record-batch tests.

  records_peer.py generate
      -> one JSON line per batch that kafka-python builds, for every magic (0, 1, 2) and
         every codec it has (none, gzip, snappy, lz4, zstd for magic 2):
         {"magic": m, "codec": c, "hex": BATCH, "records": [RECORD, ...]}
  records_peer.py decode   (stdin: one hex record set per line)
      -> one JSON line per input line: {"records": [RECORD, ...]} or {"error": "..."}

RECORD is {"offset": o, "timestamp": t, "key": HEX|null, "value": HEX|null,
"headers": [[KEY, HEX|null], ...]}.
"""
import json
import random
import sys

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

CODECS = {'none': 0, 'gzip': 1, 'snappy': 2, 'lz4': 3, 'zstd': 4}
BASE_TS = 1700000000000


def hx(b):
    return None if b is None else bytes(b).hex()


def records_of(data):
    out = []
    recs = MemoryRecords(bytes(data))
    while True:
        batch = recs.next_batch()
        if batch is None:
            break
        for r in batch:
            headers = [[k, hx(v)] for k, v in (r.headers or [])]
            # Magic 0 has no timestamp: None here, -1 (NO_TIMESTAMP) in Kafka.
            ts = -1 if r.timestamp is None else r.timestamp
            out.append({'offset': r.offset, 'timestamp': ts,
                        'key': hx(r.key), 'value': hx(r.value), 'headers': headers})
    return out


def sample(rng, n, magic):
    for i in range(n):
        key = None if rng.random() < 0.2 else bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 20)))
        # Repetitive values so every codec actually compresses.
        value = None if rng.random() < 0.1 else (b'kafka-wire ' * rng.randint(0, 300))[:rng.randint(0, 3000)]
        headers = []
        if magic == 2:
            for h in range(rng.randint(0, 3)):
                headers.append(('h%d' % h, None if rng.random() < 0.2 else b'v' * rng.randint(0, 5)))
        yield i, BASE_TS + rng.randint(0, 1000), key, value, headers


def generate():
    rng = random.Random(14)
    for magic in (0, 1, 2):
        for codec, cid in CODECS.items():
            if magic < 2 and codec == 'zstd':
                continue
            for n in (1, 7, 60):
                if magic == 2:
                    b = DefaultRecordBatchBuilder(magic=2, compression_type=cid, is_transactional=False,
                                                  producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                                  batch_size=1 << 30)
                else:
                    b = LegacyRecordBatchBuilder(magic=magic, compression_type=cid, batch_size=1 << 30)
                for off, ts, key, value, headers in sample(rng, n, magic):
                    if magic == 2:
                        b.append(off, ts, key, value, headers)
                    else:
                        b.append(off, ts if magic == 1 else None, key, value)
                data = bytes(b.build())
                print(json.dumps({'magic': magic, 'codec': codec, 'hex': data.hex(),
                                  'records': records_of(data)}))
    # An idempotent, transactional batch.
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=True,
                                  producer_id=4242, producer_epoch=3, base_sequence=17, batch_size=1 << 30)
    for off, ts, key, value, headers in sample(rng, 5, 2):
        b.append(off, ts, key, value, headers)
    data = bytes(b.build())
    print(json.dumps({'magic': 2, 'codec': 'none', 'hex': data.hex(), 'records': records_of(data),
                      'producer': [4242, 3, 17], 'transactional': True}))


def decode():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            print(json.dumps({'records': records_of(bytes.fromhex(line))}))
        except Exception as e:  # reported to the test, which fails on it
            print(json.dumps({'error': '%s: %s' % (type(e).__name__, e)}))
        sys.stdout.flush()


if __name__ == '__main__':
    {'generate': generate, 'decode': decode}[sys.argv[1]]()
