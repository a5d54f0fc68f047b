//! `topic_ref` / `set_topic_ref` follow the versions of Kafka's schemas: Produce and Fetch
//! switch from names to ids at v13 (`ProduceRequest.json`, `FetchRequest.json`), Metadata
//! requests carry either from v10, OffsetCommit switches at v10.

use kafka_wire::{Str, Uuid};
use kafka_wire_messages::metadata::MetadataRequestTopic;
use kafka_wire_messages::offset_commit::OffsetCommitRequestTopic;
use kafka_wire_messages::produce::TopicProduceData;
use kafka_wire_messages::TopicRef;

#[test]
fn produce_switches_at_13() {
    let name: Str = "orders".into();
    let id = Uuid::from_u128(0xabc);
    for v in 0..=12 {
        let mut t = TopicProduceData::default();
        t.set_topic_ref(v, &name, id);
        assert_eq!(t.topic_id, Uuid::ZERO, "v{v}");
        assert_eq!(t.topic_ref(v), Some(TopicRef::Name(&name)), "v{v}");
        // The bytes at that version carry the name.
        kafka_wire::KafkaMessage::encode_to_vec(&t, v).unwrap();
    }
    let mut t = TopicProduceData::default();
    t.set_topic_ref(13, &name, id);
    assert!(t.name.is_empty());
    assert_eq!(t.topic_ref(13), Some(TopicRef::Id(id)));
}

#[test]
fn metadata_names_either_from_10() {
    let name: Str = "orders".into();
    let id = Uuid::from_u128(5);
    // Before v10 only names; the name field is nullable from v10.
    let mut t = MetadataRequestTopic::default();
    t.set_topic_ref(9, &name, id);
    assert_eq!((t.name.as_ref(), t.topic_id), (Some(&name), Uuid::ZERO));
    // From v10 both are set; the id, when set, names the topic.
    let mut t = MetadataRequestTopic::default();
    t.set_topic_ref(12, &name, id);
    assert_eq!(t.topic_ref(12), Some(TopicRef::Id(id)));
    // A request by name at v12 leaves the id zero.
    let t = MetadataRequestTopic {
        name: Some(name.clone()),
        ..Default::default()
    };
    assert_eq!(t.topic_ref(12), Some(TopicRef::Name(&name)));
    // Neither: null name, zero id.
    let t = MetadataRequestTopic {
        name: None,
        ..Default::default()
    };
    assert_eq!(t.topic_ref(12), None);
}

#[test]
fn offset_commit_switches_at_10() {
    let name: Str = "orders".into();
    let id = Uuid::from_u128(9);
    let mut t = OffsetCommitRequestTopic::default();
    t.set_topic_ref(9, &name, id);
    assert_eq!(t.topic_ref(9), Some(TopicRef::Name(&name)));
    let mut t = OffsetCommitRequestTopic::default();
    t.set_topic_ref(10, &name, id);
    assert_eq!(t.topic_ref(10), Some(TopicRef::Id(id)));
}
