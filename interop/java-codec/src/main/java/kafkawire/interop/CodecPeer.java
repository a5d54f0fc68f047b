package kafkawire.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.AppInfoParser;

/**
 * Apache Kafka's own codec behind a line protocol, for kafka-wire's differential tests.
 *
 * <p>Each line on stdin is one JSON request; each answer is one JSON line on stdout, in order.
 * Errors are answers ({@code {"error": "..."}}), never an exit, so one bad message does not
 * hide the others. Operations:
 *
 * <ul>
 *   <li>{@code msg}: decode {@code data} (base64) as {@code class} (a generated class of
 *       {@code org.apache.kafka.common.message}) at {@code version} with Kafka's {@code read},
 *       refuse trailing bytes, re-encode with {@code size} and {@code write}; answer the bytes
 *       and the JSON converter's document.
 *   <li>{@code from_json}: read {@code json} with the class's JSON converter and encode it.
 *   <li>{@code records_read}: every batch of {@code data} through {@code MemoryRecords}, each
 *       validated ({@code ensureValid}: size, CRC) and its records read.
 *   <li>{@code records_build}: batches described in JSON built with {@code MemoryRecordsBuilder}.
 *   <li>{@code apis}: Kafka's API table ({@code ApiKeys}, {@code ApiMessageType}): names,
 *       versions with and without the unstable latest one, header versions, listeners.
 *   <li>{@code schemas}: every file under {@code common/message/} of the kafka-clients jar
 *       (the released message schemas), by name, base64.
 *   <li>{@code info}: the kafka-clients version and commit on the classpath.
 * </ul>
 */
public final class CodecPeer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder UNB64 = Base64.getDecoder();
    private static final String PACKAGE = "org.apache.kafka.common.message.";

    /** The generated class and its converter's two methods, looked up once per class. */
    private record Codec(Class<?> type, Method toJson, Method fromJson) {}

    private static final Map<String, Codec> CODECS = new HashMap<>();

    private CodecPeer() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out =
                new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode answer;
            try {
                answer = handle(JSON.readTree(line));
            } catch (Throwable t) {
                answer = error(t);
            }
            out.write(JSON.writeValueAsString(answer));
            out.write('\n');
            // Answers are flushed when the next request would block: callers pipeline.
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
    }

    private static JsonNode handle(JsonNode req) throws Exception {
        String op = req.path("op").asText();
        switch (op) {
            case "msg":
                return message(req);
            case "from_json":
                return fromJson(req);
            case "records_read":
                return readRecords(UNB64.decode(req.path("data").asText()));
            case "records_build":
                return buildRecords(req.path("batches"));
            case "apis":
                return apis();
            case "schemas":
                return schemas();
            case "info": {
                ObjectNode o = JSON.createObjectNode();
                o.put("kafka", AppInfoParser.getVersion());
                o.put("commit", AppInfoParser.getCommitId());
                return o;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static JsonNode schemas() throws Exception {
        ObjectNode files = JSON.createObjectNode();
        String jar = ApiKeys.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        try (JarFile j = new JarFile(jar)) {
            for (JarEntry e : Collections.list(j.entries())) {
                String name = e.getName();
                if (name.startsWith("common/message/") && !e.isDirectory()) {
                    byte[] data = j.getInputStream(e).readAllBytes();
                    files.put(name.substring("common/message/".length()), B64.encodeToString(data));
                }
            }
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("jar", jar);
        o.set("files", files);
        return o;
    }

    private static JsonNode apis() {
        ArrayNode out = JSON.createArrayNode();
        for (ApiKeys k : ApiKeys.values()) {
            ObjectNode a = out.addObject();
            a.put("key", k.id);
            a.put("name", k.name);
            a.put("oldest", k.oldestVersion());
            a.put("latestStable", k.latestVersion(false));
            a.put("latest", k.latestVersion(true));
            ArrayNode listeners = a.putArray("listeners");
            for (ApiMessageType.ListenerType l : k.messageType.listeners()) {
                listeners.add(l.name());
            }
            ArrayNode req = a.putArray("requestHeaderVersions");
            ArrayNode resp = a.putArray("responseHeaderVersions");
            for (short v = k.oldestVersion(); v <= k.latestVersion(true); v++) {
                req.add(k.requestHeaderVersion(v));
                resp.add(k.responseHeaderVersion(v));
            }
        }
        ObjectNode o = JSON.createObjectNode();
        o.set("apis", out);
        return o;
    }

    private static ObjectNode error(Throwable t) {
        if (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        ObjectNode o = JSON.createObjectNode();
        String msg = t.getClass().getSimpleName() + ": " + t.getMessage();
        o.put("error", msg);
        StringWriter trace = new StringWriter();
        t.printStackTrace(new PrintWriter(trace));
        String[] lines = trace.toString().split("\n");
        StringBuilder top = new StringBuilder();
        for (int i = 0; i < Math.min(lines.length, 6); i++) {
            top.append(lines[i].trim()).append(" | ");
        }
        o.put("trace", top.toString());
        return o;
    }

    private static Codec codec(String name) throws Exception {
        Codec c = CODECS.get(name);
        if (c == null) {
            Class<?> type = Class.forName(PACKAGE + name);
            Class<?> conv = Class.forName(PACKAGE + name + "JsonConverter");
            c = new Codec(
                    type,
                    conv.getMethod("write", type, short.class, boolean.class),
                    conv.getMethod("read", JsonNode.class, short.class));
            CODECS.put(name, c);
        }
        return c;
    }

    private static byte[] encode(Message m, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = m.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        m.write(new ByteBufferAccessor(buf), cache, version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException(
                    "size() said " + size + " bytes, write() left " + buf.remaining() + " unwritten");
        }
        return buf.array();
    }

    private static JsonNode message(JsonNode req) throws Exception {
        Codec c = codec(req.path("class").asText());
        short version = (short) req.path("version").asInt();
        ByteBuffer buf = ByteBuffer.wrap(UNB64.decode(req.path("data").asText()));
        Message m = (Message) c.type().getConstructor().newInstance();
        m.read(new ByteBufferAccessor(buf), version);
        if (buf.hasRemaining()) {
            throw new IllegalStateException(buf.remaining() + " byte(s) left after the message");
        }
        ObjectNode o = JSON.createObjectNode();
        o.put("data", B64.encodeToString(encode(m, version)));
        o.set("json", (JsonNode) c.toJson().invoke(null, m, version, true));
        return o;
    }

    private static JsonNode fromJson(JsonNode req) throws Exception {
        Codec c = codec(req.path("class").asText());
        short version = (short) req.path("version").asInt();
        Message m = (Message) c.fromJson().invoke(null, req.path("json"), version);
        ObjectNode o = JSON.createObjectNode();
        o.put("data", B64.encodeToString(encode(m, version)));
        return o;
    }

    private static String b64OrNull(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return B64.encodeToString(a);
    }

    private static JsonNode readRecords(byte[] data) {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(data));
        ArrayNode batches = JSON.createArrayNode();
        int bytes = 0;
        for (MutableRecordBatch batch : records.batches()) {
            batch.ensureValid();
            bytes += batch.sizeInBytes();
            ObjectNode b = batches.addObject();
            b.put("magic", batch.magic());
            b.put("compression", batch.compressionType().name);
            b.put("baseOffset", batch.baseOffset());
            b.put("lastOffset", batch.lastOffset());
            b.put("partitionLeaderEpoch", batch.partitionLeaderEpoch());
            b.put("producerId", batch.producerId());
            b.put("producerEpoch", batch.producerEpoch());
            b.put("baseSequence", batch.baseSequence());
            b.put("transactional", batch.isTransactional());
            b.put("control", batch.isControlBatch());
            b.put("timestampType", batch.timestampType().name);
            b.put("maxTimestamp", batch.maxTimestamp());
            b.put("checksum", batch.checksum());
            b.put("sizeInBytes", batch.sizeInBytes());
            ArrayNode recs = b.putArray("records");
            for (Record r : batch) {
                r.ensureValid();
                ObjectNode rec = recs.addObject();
                rec.put("offset", r.offset());
                rec.put("timestamp", r.timestamp());
                rec.put("sequence", r.sequence());
                rec.put("key", b64OrNull(r.key()));
                rec.put("value", b64OrNull(r.value()));
                ArrayNode hs = rec.putArray("headers");
                for (Header h : r.headers()) {
                    ObjectNode ho = hs.addObject();
                    ho.put("key", h.key());
                    ho.put("value", h.value() == null ? null : B64.encodeToString(h.value()));
                }
            }
        }
        ObjectNode o = JSON.createObjectNode();
        o.set("batches", batches);
        // Bytes past the last whole batch (a Fetch response may end in a partial one).
        o.put("trailing", data.length - bytes);
        return o;
    }

    private static byte[] bytesOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : UNB64.decode(n.asText());
    }

    private static JsonNode buildRecords(JsonNode batches) {
        ByteBuffer all = ByteBuffer.allocate(1 << 20);
        for (JsonNode b : batches) {
            byte magic = (byte) b.path("magic").asInt(2);
            Compression compression =
                    Compression.of(CompressionType.forName(b.path("compression").asText("none"))).build();
            TimestampType tsType = b.path("timestampType").asText("CreateTime").equals("LogAppendTime")
                    ? TimestampType.LOG_APPEND_TIME
                    : TimestampType.CREATE_TIME;
            boolean control = b.path("control").asBoolean(false);
            MemoryRecordsBuilder builder = new MemoryRecordsBuilder(
                    ByteBuffer.allocate(1 << 16),
                    magic,
                    compression,
                    magic == RecordBatch.MAGIC_VALUE_V0 ? TimestampType.NO_TIMESTAMP_TYPE : tsType,
                    b.path("baseOffset").asLong(0),
                    b.path("logAppendTime").asLong(RecordBatch.NO_TIMESTAMP),
                    b.path("producerId").asLong(RecordBatch.NO_PRODUCER_ID),
                    (short) b.path("producerEpoch").asInt(RecordBatch.NO_PRODUCER_EPOCH),
                    b.path("baseSequence").asInt(RecordBatch.NO_SEQUENCE),
                    b.path("transactional").asBoolean(false),
                    control,
                    b.path("partitionLeaderEpoch").asInt(RecordBatch.NO_PARTITION_LEADER_EPOCH),
                    Integer.MAX_VALUE);
            for (JsonNode r : b.path("records")) {
                long ts = r.path("timestamp").asLong();
                if (r.has("endTxn")) {
                    // A transaction marker: COMMIT or ABORT with the coordinator epoch.
                    ControlRecordType type = r.path("endTxn").asText().equals("COMMIT")
                            ? ControlRecordType.COMMIT
                            : ControlRecordType.ABORT;
                    builder.appendEndTxnMarker(
                            ts, new EndTransactionMarker(type, r.path("coordinatorEpoch").asInt()));
                    continue;
                }
                JsonNode hs = r.path("headers");
                Header[] headers = new Header[hs.size()];
                for (int i = 0; i < hs.size(); i++) {
                    headers[i] = new RecordHeader(
                            hs.get(i).path("key").asText(), bytesOrNull(hs.get(i).get("value")));
                }
                builder.appendWithOffset(
                        r.path("offset").asLong(),
                        ts,
                        bytesOrNull(r.get("key")),
                        bytesOrNull(r.get("value")),
                        headers);
            }
            ByteBuffer built = builder.build().buffer();
            all.put(built);
        }
        all.flip();
        byte[] out = new byte[all.remaining()];
        all.get(out);
        ObjectNode o = JSON.createObjectNode();
        o.put("data", B64.encodeToString(out));
        return o;
    }
}
