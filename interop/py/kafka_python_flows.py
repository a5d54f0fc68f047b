"""kafka-python 3.0.12's producer, consumer group and transactional producer, run against a
bootstrap address (the kwire proxy in front of librdkafka's mock cluster).

Usage: kafka_python_flows.py BOOTSTRAP TOPIC GROUP TRANSACTIONAL_ID

Prints progress on stderr and one JSON line on stdout: what each flow did, and which
compression codecs this environment could not use (kafka-python needs extra packages for
snappy, lz4 and zstd).
"""

import json
import logging
import os
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka import codec as kcodec
from kafka.structs import OffsetAndMetadata


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def main():
    if os.environ.get("KWIRE_PY_DEBUG"):
        logging.basicConfig(level=logging.DEBUG)
    bootstrap, topic, group, txn_id = sys.argv[1:5]
    result = {"produced": {}, "skipped_codecs": {}}
    partitions = 4
    # librdkafka's mock serves ApiVersions 0-2 and answers a higher version in a layout
    # kafka-python cannot read, so its broker-version probe never completes; naming a broker
    # of that era (2.3: ApiVersions v2) skips the probe.
    common = {"bootstrap_servers": bootstrap, "api_version": (2, 3, 0)}
    per_codec = 10

    available = {
        None: True,
        "gzip": kcodec.has_gzip(),
        "snappy": kcodec.has_snappy(),
        "lz4": kcodec.has_lz4(),
        "zstd": kcodec.has_zstd(),
    }
    for codec, ok in available.items():
        name = codec or "none"
        if not ok:
            result["skipped_codecs"][name] = "python package for the codec not installed"
            continue
        p = KafkaProducer(**common, compression_type=codec,
                          client_id="kafka-python-proxy", linger_ms=5)
        futures = [p.send(topic, key=b"py-%d" % i, value=b"py %s %d" % (name.encode(), i),
                          partition=i % partitions) for i in range(per_codec)]
        p.flush(timeout=30)
        for f in futures:
            f.get(timeout=30)
        p.close(timeout=10)
        result["produced"][name] = per_codec
        log("produced", name, per_codec)

    c = KafkaConsumer(topic, **common, group_id=group,
                      auto_offset_reset="earliest", enable_auto_commit=False,
                      client_id="kafka-python-proxy", consumer_timeout_ms=1000)
    consumed = 0
    deadline = time.time() + 60
    want = sum(result["produced"].values())
    while consumed < want and time.time() < deadline:
        for records in c.poll(timeout_ms=500).values():
            consumed += len(records)
    result["consumed_at_least"] = consumed
    c.commit()
    committed = {tp.partition: c.committed(tp) for tp in c.assignment()}
    result["committed"] = committed
    group_metadata = c.group_metadata()
    log("consumed", consumed, "committed", committed)

    t = KafkaProducer(**common, transactional_id=txn_id,
                      client_id="kafka-python-proxy-txn")
    t.init_transactions()
    t.begin_transaction()
    for i in range(6):
        t.send(topic, key=b"txn", value=b"committed %d" % i, partition=i % partitions)
    offsets = {TopicPartition(topic, p): OffsetAndMetadata(1, "", -1) for p in range(partitions)}
    t.send_offsets_to_transaction(offsets, group_metadata)
    t.commit_transaction()
    t.begin_transaction()
    for i in range(3):
        t.send(topic, key=b"txn", value=b"aborted %d" % i, partition=i % partitions)
    t.abort_transaction()
    t.close(timeout=10)
    result["transactions"] = {"committed": 1, "aborted": 1}
    log("transactions done")

    c.close()  # leaves the group
    result["left_group"] = True
    print(json.dumps(result))


if __name__ == "__main__":
    main()
