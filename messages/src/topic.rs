//! Topics named by name or by id, depending on the version.

use kafka_wire::{Str, Uuid, Version, VersionRange};

/// How a request or response names a topic. Kafka moved from names to ids (KIP-516) one API
/// at a time: Produce and Fetch from v13, Metadata, OffsetCommit and OffsetFetch from v10,
/// TxnOffsetCommit from v6, and so on. Every generated struct that has both a topic-name
/// field and a `topic_id` has `topic_ref(version)` and `set_topic_ref(version, name, id)`, which pick
/// the field that version has.
///
/// ```
/// use kafka_wire::Uuid;
/// use kafka_wire_messages::fetch::FetchTopic;
/// use kafka_wire_messages::TopicRef;
///
/// let id = Uuid::from_u128(7);
/// let mut t = FetchTopic::default();
/// t.set_topic_ref(12, &"orders".into(), id);
/// assert_eq!(t.topic_ref(12), Some(TopicRef::Name(&"orders".into())));
/// let mut t = FetchTopic::default();
/// t.set_topic_ref(13, &"orders".into(), id);
/// assert_eq!(t.topic_ref(13), Some(TopicRef::Id(id)));
/// assert!(t.topic.is_empty()); // v13 has no name: left at its default
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicRef<'a> {
    /// By name.
    Name(&'a Str),
    /// By topic id.
    Id(Uuid),
}

impl<'a> TopicRef<'a> {
    /// The topic of a struct whose name field (`name`, versions `names`) and id field (`id`,
    /// versions `ids`) are given: the id when `version` has it and it is set (or the version
    /// has no name), else the name; `None` when the version has neither or the name is null.
    #[doc(hidden)]
    pub fn pick(
        version: Version,
        names: VersionRange,
        name: Option<&'a Str>,
        ids: VersionRange,
        id: Uuid,
    ) -> Option<Self> {
        let by_name = names.contains(version);
        if ids.contains(version) && (!by_name || id != Uuid::ZERO) {
            return Some(TopicRef::Id(id));
        }
        if by_name {
            return name.map(TopicRef::Name);
        }
        None
    }
}
