"""librdkafka (confluent-kafka) against the mock cluster (kafka-wire-mock/tests/clients.rs runs
it): produces 12 records with each codec, idempotently, over the 6 partitions of TOPIC; three
consumers of one group share the partitions 2-2-2; one leaves and the other two take its
partitions over, resuming from the offsets it committed; every record is read, and the
committed offsets read back are the partitions' ends.
Usage: group_of_three.py BOOTSTRAP TOPIC"""
import sys
import time
from confluent_kafka import Producer, Consumer, TopicPartition

bs, topic = sys.argv[1], sys.argv[2]
sent = set()
for codec in ["none", "gzip", "snappy", "lz4", "zstd"]:
    p = Producer({"bootstrap.servers": bs, "compression.codec": codec,
                  "enable.idempotence": True, "linger.ms": 5})
    errs = []
    for i in range(12):
        v = f"{codec}-{i}"
        p.produce(topic, value=v.encode(), partition=i % 6,
                  on_delivery=lambda e, m: errs.append(e) if e else None)
        sent.add(v)
    assert p.flush(15) == 0
    assert not errs, errs
print("produced", len(sent))


def consumer(name):
    return Consumer({"bootstrap.servers": bs, "group.id": "three", "client.id": name,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False,
                     "session.timeout.ms": 6000, "heartbeat.interval.ms": 300,
                     "partition.assignment.strategy": "range"})


members = [consumer(f"c{i}") for i in range(3)]
for c in members:
    c.subscribe([topic])
got = set()


def poll(cs):
    for c in cs:
        m = c.poll(0.05)
        if m is None:
            continue
        if m.error():
            print("error", m.error())
            continue
        got.add(m.value().decode())
        c.commit(message=m, asynchronous=False)


def shares(cs):
    return sorted(len(c.assignment()) for c in cs)


deadline = time.time() + 40
while shares(members) != [2, 2, 2] and time.time() < deadline:
    poll(members)
print("assignments", shares(members))
assert shares(members) == [2, 2, 2]
owned = sorted(tp.partition for c in members for tp in c.assignment())
assert owned == list(range(6)), owned

leaving = members.pop()
leaving.close()
print("one left")
deadline = time.time() + 40
while (shares(members) != [3, 3] or len(got) < len(sent)) and time.time() < deadline:
    poll(members)
print("assignments", shares(members), "read", len(got))
assert shares(members) == [3, 3]
assert got == sent, sorted(sent - got)

committed = members[0].committed([TopicPartition(topic, i) for i in range(6)], timeout=10)
offsets = [tp.offset for tp in committed]
print("committed", offsets)
assert offsets == [10] * 6, offsets
for c in members:
    c.close()
print("OK", len(got))
