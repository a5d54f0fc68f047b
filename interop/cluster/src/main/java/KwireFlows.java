// Kafka's own Java clients (4.4.0) running real flows against a broker, for
// interop/tests/cluster.rs, which runs them through `kwire proxy`. One flow per run:
//   java KwireFlows <bootstrap> <flow> <topic>
// flows: admin, produce, consume-classic, consume-consumer, share, read (every committed
// record of the topic from its log start, no group: the batches our client produced, checked
// record by record). Authenticates as the
// cluster's super user over SASL/PLAIN. Prints one line "RESULT {json}" on success; any
// failure throws (exit status 1).

import java.time.Duration;
import java.util.*;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.quota.*;
import org.apache.kafka.common.resource.*;
import org.apache.kafka.common.serialization.*;

public final class KwireFlows {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
    static final int PER_CODEC = 20;
    static final int PARTITIONS = 3;
    static final long TIMEOUT_S = 60;

    static Properties base(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "PLAIN");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"admin\" password=\"admin-secret\";");
        p.put("request.timeout.ms", "20000");
        p.put("default.api.timeout.ms", "60000");
        return p;
    }

    static void check(boolean ok, String what) {
        if (!ok) throw new IllegalStateException("check failed: " + what);
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], flow = args[1], topic = args[2];
        Map<String, Object> result = new TreeMap<>();
        switch (flow) {
            case "admin": admin(bootstrap, topic, result); break;
            case "produce": produce(bootstrap, topic, result); break;
            case "consume-classic": consume(bootstrap, topic, "classic", result); break;
            case "consume-consumer": consume(bootstrap, topic, "consumer", result); break;
            case "share": share(bootstrap, topic, result); break;
            case "read": read(bootstrap, topic, result); break;
            default: throw new IllegalArgumentException("unknown flow " + flow);
        }
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : result.entrySet()) {
            if (sb.length() > 1) sb.append(',');
            sb.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof Number || v instanceof Boolean) sb.append(v);
            else sb.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        System.out.println("RESULT " + sb.append('}'));
        System.exit(0);
    }

    /** Topics, partitions, configs, ACLs, quotas, SCRAM credentials, log dirs, leader
     *  election, reassignments, cluster, features, groups, producers, transactions. */
    static void admin(String bootstrap, String topic, Map<String, Object> r) throws Exception {
        try (Admin a = Admin.create(base(bootstrap))) {
            String scratch = topic + "-admin";
            a.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1),
                    new NewTopic(scratch, 1, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            Map<String, TopicDescription> d = a.describeTopics(List.of(topic, scratch)).allTopicNames().get();
            check(d.get(topic).partitions().size() == PARTITIONS, "partitions of " + topic);
            check(a.listTopics().names().get().contains(scratch), "listTopics");
            a.createPartitions(Map.of(scratch, NewPartitions.increaseTo(2))).all().get();
            DescribeClusterResult c = a.describeCluster();
            r.put("cluster_nodes", c.nodes().get().size());
            r.put("controller", c.controller().get().id());
            r.put("features", a.describeFeatures().featureMetadata().get().finalizedFeatures().size());
            ConfigResource tr = new ConfigResource(ConfigResource.Type.TOPIC, scratch);
            a.incrementalAlterConfigs(Map.of(tr, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all().get();
            Config cfg = a.describeConfigs(List.of(tr)).all().get().get(tr);
            check("3600000".equals(cfg.get("retention.ms").value()), "retention.ms altered");
            ConfigResource br = new ConfigResource(ConfigResource.Type.BROKER, "2");
            r.put("broker_configs", a.describeConfigs(List.of(br)).all().get().get(br).entries().size());
            AclBinding acl = new AclBinding(new ResourcePattern(ResourceType.TOPIC, scratch, PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW));
            a.createAcls(List.of(acl)).all().get();
            AclBindingFilter f = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, scratch, PatternType.LITERAL),
                    AccessControlEntryFilter.ANY);
            long acls = 0;
            for (int i = 0; i < 50 && acls == 0; i++) { acls = a.describeAcls(f).values().get().size(); if (acls == 0) Thread.sleep(100); }
            check(acls == 1, "ACL described");
            check(a.deleteAcls(List.of(f)).all().get().size() == 1, "ACL deleted");
            ClientQuotaEntity qe = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice"));
            a.alterClientQuotas(List.of(new ClientQuotaAlteration(qe,
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0))))).all().get();
            Map<ClientQuotaEntity, Map<String, Double>> q = Map.of();
            for (int i = 0; i < 50 && q.isEmpty(); i++) {
                q = a.describeClientQuotas(ClientQuotaFilter.all()).entities().get();
                if (q.isEmpty()) Thread.sleep(100);
            }
            check(q.containsKey(qe), "quota described");
            a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("bob",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "bob-secret"))).all().get();
            r.put("scram_users", a.describeUserScramCredentials().all().get().size());
            a.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("bob", ScramMechanism.SCRAM_SHA_256))).all().get();
            r.put("log_dirs", a.describeLogDirs(List.of(2)).allDescriptions().get().get(2).size());
            TopicPartition tp = new TopicPartition(scratch, 0);
            a.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2))))).all().get();
            r.put("reassignments", a.listPartitionReassignments().reassignments().get().size());
            try {
                a.electLeaders(ElectionType.PREFERRED, Set.of(tp)).all().get();
            } catch (java.util.concurrent.ExecutionException e) {
                // The only replica already leads: Kafka answers ELECTION_NOT_NEEDED.
                check(e.getCause() instanceof org.apache.kafka.common.errors.ElectionNotNeededException, "electLeaders: " + e.getCause());
            }
            r.put("groups", a.listGroups().all().get().size());
            r.put("transactions", a.listTransactions().all().get().size());
            r.put("producers", a.describeProducers(List.of(tp)).all().get().get(tp).activeProducers().size());
            a.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(0))).all().get();
            a.deleteTopics(List.of(scratch)).all().get();
            // A client-metrics subscription (KIP-714): the clients of the later flows push
            // their metrics every second, to the telemetry receiver the broker runs.
            ConfigResource cm = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "kwire-all");
            a.incrementalAlterConfigs(Map.of(cm, List.of(
                    new AlterConfigOp(new ConfigEntry("metrics", "*"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("interval.ms", "1000"), AlterConfigOp.OpType.SET)))).all().get();
            r.put("ok", true);
        }
    }

    /** Per codec: an idempotent producer, then a transactional one that commits and aborts. */
    static void produce(String bootstrap, String topic, Map<String, Object> r) throws Exception {
        int sent = 0, committed = 0, aborted = 0;
        for (String codec : CODECS) {
            Properties p = base(bootstrap);
            p.put("key.serializer", StringSerializer.class.getName());
            p.put("value.serializer", StringSerializer.class.getName());
            p.put("compression.type", codec);
            p.put("enable.idempotence", "true");
            p.put("acks", "all");
            p.put("linger.ms", "5");
            try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
                for (int i = 0; i < PER_CODEC; i++) {
                    prod.send(new ProducerRecord<>(topic, i % PARTITIONS, codec + "-" + i,
                            codec + " record " + i + " " + "x".repeat(i * 7))).get();
                    sent++;
                }
            }
            p.put("transactional.id", "kwire-txn-" + codec);
            try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
                prod.initTransactions();
                prod.beginTransaction();
                for (int i = 0; i < PER_CODEC; i++) {
                    prod.send(new ProducerRecord<>(topic, i % PARTITIONS, "txn-" + codec + "-" + i, "committed " + i));
                    committed++;
                }
                prod.commitTransaction();
                prod.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    prod.send(new ProducerRecord<>(topic, i % PARTITIONS, "abort-" + codec + "-" + i, "aborted " + i));
                    aborted++;
                }
                prod.flush();
                prod.abortTransaction();
            }
        }
        r.put("idempotent", sent);
        r.put("committed", committed);
        r.put("aborted", aborted);
    }

    /** A group consumer (group.protocol classic or consumer) reading every committed record
     *  (read_committed: the aborted ones must not appear), committing, leaving. */
    static void consume(String bootstrap, String topic, String protocol, Map<String, Object> r) throws Exception {
        Properties p = base(bootstrap);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("group.id", "kwire-" + protocol + "-" + topic);
        p.put("group.protocol", protocol);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("isolation.level", "read_committed");
        int want = CODECS.length * PER_CODEC * 2;
        int got = 0, abortedSeen = 0;
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (got < want && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> rec : c.poll(Duration.ofMillis(200))) {
                    got++;
                    if (rec.key().startsWith("abort-")) abortedSeen++;
                }
            }
            c.commitSync();
            long committed = 0;
            Set<TopicPartition> tps = new HashSet<>();
            for (int i = 0; i < PARTITIONS; i++) tps.add(new TopicPartition(topic, i));
            for (OffsetAndMetadata o : c.committed(tps).values()) if (o != null) committed += o.offset();
            r.put("committed_offsets_sum", committed);
        }
        check(got == want, protocol + ": consumed " + got + " of " + want);
        check(abortedSeen == 0, protocol + ": aborted records delivered");
        r.put("consumed", got);
        r.put("protocol", protocol);
    }

    /** Every committed record of every partition from the log start (read_committed, no
     *  group), until the end offsets: each key "k<i>" must carry the value "value <i>". */
    static void read(String bootstrap, String topic, Map<String, Object> r) throws Exception {
        Properties p = base(bootstrap);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("isolation.level", "read_committed");
        p.put("enable.auto.commit", "false");
        int got = 0;
        Map<String, Integer> perPartition = new TreeMap<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : c.partitionsFor(topic)) tps.add(new TopicPartition(topic, pi.partition()));
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (System.nanoTime() < deadline) {
                boolean done = true;
                for (TopicPartition tp : tps) if (c.position(tp) < end.get(tp)) done = false;
                if (done) break;
                for (ConsumerRecord<String, String> rec : c.poll(Duration.ofMillis(200))) {
                    check(rec.key().startsWith("k") && rec.value().equals("value " + rec.key().substring(1)),
                            "record " + rec.key() + " = " + rec.value());
                    got++;
                    perPartition.merge("p" + rec.partition(), 1, Integer::sum);
                }
            }
        }
        r.put("records", got);
        r.put("per_partition", perPartition.toString());
    }

    /** A share group (KIP-932): records acknowledged and committed. */
    static void share(String bootstrap, String topic, Map<String, Object> r) throws Exception {
        String group = "kwire-share-" + topic;
        try (Admin a = Admin.create(base(bootstrap))) {
            ConfigResource g = new ConfigResource(ConfigResource.Type.GROUP, group);
            a.incrementalAlterConfigs(Map.of(g, List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("share.isolation.level", "read_committed"), AlterConfigOp.OpType.SET)))).all().get();
        }
        Properties p = base(bootstrap);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("group.id", group);
        p.put("share.acknowledgement.mode", "explicit");
        int want = CODECS.length * PER_CODEC * 2;
        int got = 0;
        try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (got < want && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> rec : c.poll(Duration.ofMillis(200))) {
                    got++;
                    c.acknowledge(rec, AcknowledgeType.ACCEPT);
                }
                c.commitSync();
            }
        }
        check(got >= want, "share: consumed " + got + " of " + want);
        r.put("consumed", got);
    }
}
