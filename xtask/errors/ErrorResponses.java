// For every API and version: the response Java's `AbstractRequest.getErrorResponse` gives
// for the default (empty) request failed with the error whose code is the first argument,
// serialized at that version (body only), as `key version hex`; `key version ! why` where
// Java gives none (Produce with acks 0) or refuses the empty request. Run once by
// extract.sh; its output is the fixture of messages/tests/error_responses.rs.
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.*;
import org.apache.kafka.common.requests.*;
import org.apache.kafka.common.message.*;

public class ErrorResponses {
    static String hex(ByteBuffer b) {
        StringBuilder s = new StringBuilder();
        while (b.hasRemaining()) s.append(String.format("%02x", b.get()));
        return s.toString();
    }
    public static void main(String[] a) {
        Errors err = Errors.forCode(Short.parseShort(a[0]));
        for (ApiKeys k : ApiKeys.values()) {
            for (short v = k.oldestVersion(); v <= k.latestVersion(true); v++) {
                try {
                    ApiMessage data = ApiMessageType.fromApiKey(k.id).newRequest();
                    AbstractRequest req = AbstractRequest.parseRequest(k, v, MessageUtil.toByteBufferAccessor(data, v)).request;
                    AbstractResponse resp = req.getErrorResponse(0, err.exception());
                    System.out.println(k.id + " " + v + " " + hex(MessageUtil.toByteBufferAccessor(resp.data(), v).buffer()));
                } catch (Throwable t) {
                    System.out.println(k.id + " " + v + " ! " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n',' '));
                }
            }
        }
    }
}
