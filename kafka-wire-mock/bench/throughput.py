"""Produce-then-consume throughput of librdkafka (confluent-kafka) against a cluster: N records
of 1 KiB with each codec, to a 3-partition topic each, then read back. Prints a table row per
codec (records/s produced, records/s consumed).
Usage: throughput.py BOOTSTRAP [N]"""
import sys
import time
from confluent_kafka import Producer, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 50000
codecs = ["none", "gzip", "snappy", "lz4", "zstd"]
admin = AdminClient({"bootstrap.servers": bootstrap})
for f in admin.create_topics([NewTopic(f"bench-{c}", 3, 1) for c in codecs]).values():
    f.result(10)
value = bytes(i // 16 % 256 for i in range(1024))
for codec in codecs:
    topic = f"bench-{codec}"
    p = Producer({"bootstrap.servers": bootstrap, "compression.codec": codec, "linger.ms": 5,
                  "batch.size": 1000000, "queue.buffering.max.messages": 2000000})
    start = time.perf_counter()
    for i in range(n):
        p.produce(topic, value=value, partition=i % 3)
        if i % 10000 == 0:
            p.poll(0)
    assert p.flush(60) == 0
    produced = n / (time.perf_counter() - start)
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench",
                  "enable.auto.commit": False, "fetch.max.bytes": 52428800})
    c.assign([TopicPartition(topic, i, 0) for i in range(3)])
    start = time.perf_counter()
    read = 0
    deadline = time.time() + 120
    while read < n and time.time() < deadline:
        for m in c.consume(10000, 0.5):
            assert not m.error(), m.error()
            assert len(m.value()) == 1024
            read += 1
    consumed = n / (time.perf_counter() - start)
    c.close()
    assert read == n, (codec, read)
    print(f"| {codec} | {produced:.0f} | {consumed:.0f} |", flush=True)
print("OK", bootstrap)
