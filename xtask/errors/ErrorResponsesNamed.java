// For the APIs whose error response lists the request's entries: a request naming topic "t"
// (and its id) with partitions 0 and 1 (a group "g" for OffsetFetch v8+; groups or keys "g"
// and "h" for FindCoordinator and DescribeGroups; topic "t" for CreateTopics and DeleteTopics), at every version,
// and the response Java's getErrorResponse gives it for the error whose code is the first
// argument: `key version request-body-hex response-body-hex`, or `key version ! why`. Run
// once by extract.sh; its output is a fixture of messages/tests/error_responses.rs.
import java.util.*;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.*;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.*;
import org.apache.kafka.common.message.*;

public class ErrorResponsesNamed {
    static final Uuid ID = new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);

    static String hex(java.nio.ByteBuffer b) {
        StringBuilder s = new StringBuilder();
        while (b.hasRemaining()) s.append(String.format("%02x", b.get()));
        return s.toString();
    }

    static ApiMessage request(ApiKeys k, short v) {
        switch (k) {
            case PRODUCE: {
                ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
                List<ProduceRequestData.PartitionProduceData> ps = new ArrayList<>();
                for (int p = 0; p < 2; p++) ps.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(MemoryRecords.EMPTY));
                topics.add(new ProduceRequestData.TopicProduceData().setName("t").setTopicId(ID).setPartitionData(ps));
                return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000).setTopicData(topics);
            }
            case FETCH: {
                List<FetchRequestData.FetchPartition> ps = new ArrayList<>();
                for (int p = 0; p < 2; p++) ps.add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(5));
                return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(100).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("t").setTopicId(ID).setPartitions(ps)));
            }
            case METADATA:
                return new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t").setTopicId(ID)));
            case LIST_OFFSETS: {
                List<ListOffsetsRequestData.ListOffsetsPartition> ps = new ArrayList<>();
                for (int p = 0; p < 2; p++) ps.add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p).setTimestamp(-1));
                return new ListOffsetsRequestData().setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName("t").setPartitions(ps)));
            }
            case OFFSET_COMMIT: {
                List<OffsetCommitRequestData.OffsetCommitRequestPartition> ps = new ArrayList<>();
                for (int p = 0; p < 2; p++) ps.add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(7));
                return new OffsetCommitRequestData().setGroupId("g").setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("t").setTopicId(ID).setPartitions(ps)));
            }
            case OFFSET_FETCH:
                if (v < 8)
                    return new OffsetFetchRequestData().setGroupId("g")
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("t").setPartitionIndexes(List.of(0, 1))));
                return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("g")
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("t").setTopicId(ID).setPartitionIndexes(List.of(0, 1))))));
            case FIND_COORDINATOR:
                return v >= 4 ? new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g", "h")) : new FindCoordinatorRequestData().setKey("g");
            case DESCRIBE_GROUPS:
                return new DescribeGroupsRequestData().setGroups(List.of("g", "h"));
            case CREATE_TOPICS: {
                CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
                topics.add(new CreateTopicsRequestData.CreatableTopic().setName("t").setNumPartitions(2).setReplicationFactor((short) 1));
                return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(1000);
            }
            case DELETE_TOPICS:
                if (v < 6) return new DeleteTopicsRequestData().setTopicNames(List.of("t")).setTimeoutMs(1000);
                return new DeleteTopicsRequestData().setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName("t").setTopicId(ID))).setTimeoutMs(1000);
            default:
                return null;
        }
    }

    public static void main(String[] a) {
        Errors err = Errors.forCode(Short.parseShort(a[0]));
        for (ApiKeys k : new ApiKeys[] {ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.METADATA, ApiKeys.LIST_OFFSETS, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
                ApiKeys.FIND_COORDINATOR, ApiKeys.DESCRIBE_GROUPS, ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS}) {
            for (short v = k.oldestVersion(); v <= k.latestVersion(true); v++) {
                try {
                    ApiMessage data = request(k, v);
                    String reqHex = hex(MessageUtil.toByteBufferAccessor(data, v).buffer());
                    AbstractRequest req = AbstractRequest.parseRequest(k, v, MessageUtil.toByteBufferAccessor(data, v)).request;
                    AbstractResponse resp = req.getErrorResponse(0, err.exception());
                    System.out.println(k.id + " " + v + " " + reqHex + " " + hex(MessageUtil.toByteBufferAccessor(resp.data(), v).buffer()));
                } catch (Throwable t) {
                    System.out.println(k.id + " " + v + " ! " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n', ' '));
                }
            }
        }
    }
}
