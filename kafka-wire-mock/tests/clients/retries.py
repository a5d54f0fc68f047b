"""librdkafka (confluent-kafka) against the mock cluster (kafka-wire-mock/tests/clients.rs runs
it, with errors injected into the first Produce requests): an idempotent producer sends 10
records to partition 0 of TOPIC and must get every one delivered through the retries; a
consumer then reads the partition from the start and must see each record once, in order.
Usage: retries.py BOOTSTRAP TOPIC"""
import sys
from confluent_kafka import Producer, Consumer, TopicPartition

bs, topic = sys.argv[1], sys.argv[2]
p = Producer({"bootstrap.servers": bs, "enable.idempotence": True, "acks": "all",
              "retry.backoff.ms": 50, "linger.ms": 0})
errs = []
values = [f"r-{i}".encode() for i in range(10)]
for v in values:
    p.produce(topic, value=v, partition=0,
              on_delivery=lambda e, m: errs.append(e) if e else None)
    p.poll(0)
assert p.flush(30) == 0
assert not errs, errs
print("delivered", len(values))

c = Consumer({"bootstrap.servers": bs, "group.id": "check", "enable.auto.commit": False})
c.assign([TopicPartition(topic, 0, 0)])
got = []
while len(got) < len(values):
    m = c.poll(5.0)
    assert m is not None, got
    assert not m.error(), m.error()
    got.append(m.value())
c.close()
assert got == values, got
print("OK", len(got))
