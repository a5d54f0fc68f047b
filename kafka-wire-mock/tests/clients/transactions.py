"""librdkafka (confluent-kafka) transactions against the mock cluster
(kafka-wire-mock/tests/clients.rs runs it): a transaction of 5 records committed, one of 5
aborted after they were written, another of 5 committed; a read_committed consumer sees the
10 committed records and none of the aborted, a read_uncommitted one all 15; then offsets
committed through a transaction (send_offsets_to_transaction) are read back.
Usage: transactions.py BOOTSTRAP TOPIC"""
import sys
import time
from confluent_kafka import Producer, Consumer, TopicPartition

bs, topic = sys.argv[1], sys.argv[2]
p = Producer({"bootstrap.servers": bs, "transactional.id": "tx-1"})
p.init_transactions(15)


def transaction(prefix, commit):
    p.begin_transaction()
    values = [f"{prefix}-{i}" for i in range(5)]
    for i, v in enumerate(values):
        p.produce(topic, value=v.encode(), partition=i % 2)
    p.flush(15)
    if commit:
        p.commit_transaction(15)
    else:
        p.abort_transaction(15)
    return values


first = transaction("first", True)
transaction("aborted", False)
committed = first + transaction("second", True)
print("transactions done")


def read(isolation, want):
    c = Consumer({"bootstrap.servers": bs, "group.id": "txc", "enable.auto.commit": False,
                  "isolation.level": isolation})
    c.assign([TopicPartition(topic, 0, 0), TopicPartition(topic, 1, 0)])
    got = []
    deadline = time.time() + 20
    while len(got) < want and time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        got.append(m.value().decode())
    # A little longer: nothing more may arrive.
    end = time.time() + 1
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append(m.value().decode())
    return c, got


c, got = read("read_committed", 10)
print("read_committed", sorted(got))
assert sorted(got) == sorted(committed), got
c.close()
c, got = read("read_uncommitted", 15)
print("read_uncommitted", len(got))
assert len(got) == 15 and sum(v.startswith("aborted") for v in got) == 5, got

p.begin_transaction()
p.send_offsets_to_transaction([TopicPartition(topic, 0, 3)], c.consumer_group_metadata(), 15)
p.commit_transaction(15)
offsets = c.committed([TopicPartition(topic, 0)], timeout=10)
print("committed", [tp.offset for tp in offsets])
assert offsets[0].offset == 3, offsets
c.close()
print("OK", len(committed))
