"""kafka-python 3.0.12 against the mini_broker example (examples/tests/mini_broker.rs runs it):
creates a topic with the admin client, produces 5 records with each codec (none, gzip, snappy,
lz4, zstd), consumes them all in group g1, commits, and checks a second member of the group
resumes after the committed offsets. Usage: kafka_python_client.py HOST:PORT"""
import sys, time
from kafka import KafkaProducer, KafkaConsumer, KafkaAdminClient
from kafka.admin import NewTopic
bs = sys.argv[1]
admin = KafkaAdminClient(bootstrap_servers=bs, request_timeout_ms=5000)
admin.create_topics([NewTopic("t1", 2, 1)])
print("created", admin.list_topics())
sent = []
for codec in [None, "gzip", "snappy", "lz4", "zstd"]:
    p = KafkaProducer(bootstrap_servers=bs, compression_type=codec, linger_ms=5)
    for i in range(5):
        v = f"{codec}-{i}".encode()
        p.send("t1", key=str(i).encode(), value=v, partition=i % 2)
        sent.append(v)
    p.flush(); p.close()
    print("produced", codec)
c = KafkaConsumer("t1", bootstrap_servers=bs, group_id="g1", auto_offset_reset="earliest", consumer_timeout_ms=5000, enable_auto_commit=False)
got = []
for m in c:
    got.append(m.value)
    if len(got) == len(sent): break
c.commit()
print("committed", c.committed(list(c.assignment())[0]) if c.assignment() else None)
c.close()
assert sorted(got) == sorted(sent), (len(got), len(sent))
# A second consumer in the group resumes after the committed offsets: nothing left.
c2 = KafkaConsumer("t1", bootstrap_servers=bs, group_id="g1", auto_offset_reset="earliest", consumer_timeout_ms=3000)
rest = [m.value for m in c2]
c2.close()
print("rest", rest)
assert rest == [], rest
print("OK", len(got))
