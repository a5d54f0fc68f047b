// Prints Kafka's error table (org.apache.kafka.common.protocol.Errors) as JSON: for each
// error its code, name, whether its exception is retriable, the exception's class and the
// message Java gives. Run once by extract.sh against the kafka-clients jar; its output is
// committed, so nothing needs Java at build or test time.
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;

public class ErrorTable {
    static String quote(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
            }
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) {
        String version = args.length > 0 ? args[0] : "?";
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"source\": \"org.apache.kafka.common.protocol.Errors, kafka-clients ")
            .append(version).append("\",\n  \"errors\": [\n");
        Errors[] all = Errors.values();
        for (int i = 0; i < all.length; i++) {
            Errors e = all[i];
            Throwable ex = e.exception();
            out.append("    {\"code\": ").append(e.code())
                .append(", \"name\": ").append(quote(e.name()))
                .append(", \"retriable\": ").append(ex instanceof RetriableException)
                .append(", \"exception\": ").append(quote(ex == null ? null : ex.getClass().getSimpleName()))
                .append(", \"message\": ").append(quote(e.message()))
                .append(i + 1 < all.length ? "},\n" : "}\n");
        }
        out.append("  ]\n}\n");
        System.out.print(out);
    }
}
