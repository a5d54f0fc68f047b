"""librdkafka (through confluent-kafka) against the mini_broker example (examples/tests/mini_broker.rs
runs it): creates a topic with the admin client, produces 6 records with each codec, plain and
idempotent, consumes them all in group rg, commits and reads the committed offsets back.
Usage: librdkafka_client.py HOST:PORT"""
import sys
import time
from confluent_kafka import Producer, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bs = sys.argv[1]
admin = AdminClient({"bootstrap.servers": bs})
for f in admin.create_topics([NewTopic("r1", num_partitions=3, replication_factor=1)]).values():
    f.result(10)
print("created")
sent = []
for codec in ["none", "gzip", "snappy", "lz4", "zstd"]:
    for idem in [False, True]:
        p = Producer({"bootstrap.servers": bs, "compression.codec": codec, "enable.idempotence": idem, "linger.ms": 5})
        errs = []
        for i in range(6):
            v = f"{codec}-{idem}-{i}".encode()
            p.produce("r1", key=str(i).encode(), value=v, partition=i % 3, on_delivery=lambda e, m: errs.append(e) if e else None)
            sent.append(v)
        assert p.flush(10) == 0
        assert not errs, errs
        print("produced", codec, "idempotent" if idem else "")
c = Consumer({"bootstrap.servers": bs, "group.id": "rg", "auto.offset.reset": "earliest", "enable.auto.commit": False})
c.subscribe(["r1"])
got = []
deadline = time.time() + 30
while len(got) < len(sent) and time.time() < deadline:
    m = c.poll(1.0)
    if m is None: continue
    if m.error(): print("error", m.error()); continue
    got.append(m.value())
c.commit(asynchronous=False)
committed = c.committed([TopicPartition("r1", i) for i in range(3)], timeout=10)
print("committed", [tp.offset for tp in committed])
c.close()
assert sorted(got) == sorted(sent), (len(got), len(sent))
print("OK", len(got))
