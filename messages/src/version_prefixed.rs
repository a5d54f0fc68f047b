//! Messages that Kafka writes with their version in front: an int16 version, then the body at
//! that version. This is how the non-API schemas travel: the consumer protocol's
//! [`ConsumerProtocolSubscription`](crate::ConsumerProtocolSubscription) and
//! [`ConsumerProtocolAssignment`](crate::ConsumerProtocolAssignment) inside JoinGroup's
//! protocol metadata and SyncGroup's assignments, the KRaft control records
//! ([`LeaderChangeMessage`](crate::LeaderChangeMessage),
//! [`SnapshotHeaderRecord`](crate::SnapshotHeaderRecord),
//! [`SnapshotFooterRecord`](crate::SnapshotFooterRecord), [`VotersRecord`](crate::VotersRecord),
//! [`KRaftVersionRecord`](crate::KRaftVersionRecord)), the transaction marker value
//! [`EndTxnMarker`](crate::EndTxnMarker) and the control record key
//! ([`ControlRecordTypeSchema`](crate::ControlRecordTypeSchema)), and
//! [`DefaultPrincipalData`](crate::DefaultPrincipalData).
//!
//! ```
//! use kafka_wire::Str;
//! use kafka_wire_messages::{
//!     decode_version_prefixed, encode_version_prefixed, ConsumerProtocolSubscription,
//! };
//!
//! let sub = ConsumerProtocolSubscription {
//!     topics: vec![Str::from("orders")],
//!     ..Default::default()
//! };
//! let bytes = encode_version_prefixed(&sub, 0).unwrap();
//! // version 0, one topic "orders", null user data
//! assert_eq!(&bytes[..2], &[0, 0]);
//! let (version, back) =
//!     decode_version_prefixed::<ConsumerProtocolSubscription>(&bytes.into()).unwrap();
//! assert_eq!((version, back), (0, sub));
//! ```

use bytes::{BufMut, Bytes};
use kafka_wire::{DecodeError, DecodeErrorKind, EncodeError, KafkaMessage, Reader, Version};

/// Writes `version` as an int16, then `message` at that version.
pub fn encode_version_prefixed<M: KafkaMessage>(
    message: &M,
    version: Version,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(2 + message.encoded_size(version));
    out.put_i16(version);
    message.encode(&mut out, version)?;
    Ok(out)
}

/// Reads an int16 version, then the message at that version; returns the version on the wire
/// and the message.
///
/// A version below the message's lowest is `UnsupportedVersion`. A version above its
/// highest is read as the highest, and the bytes after it are ignored, as Kafka's consumer
/// protocol does: newer versions only append fields. At a known version, bytes left over are
/// `TrailingBytes`.
pub fn decode_version_prefixed<M: KafkaMessage>(buf: &Bytes) -> Result<(Version, M), DecodeError> {
    let mut r = Reader::new(buf);
    let version = r.read_i16().map_err(|e| e.in_field("version"))?;
    let range = M::META.versions;
    let (lowest, highest) = (range.min().unwrap_or(0), range.max().unwrap_or(0));
    if version < lowest {
        return Err(DecodeError::new(
            DecodeErrorKind::UnsupportedVersion {
                name: M::META.name,
                version,
            },
            0,
        )
        .in_field("version"));
    }
    let read_as = version.min(highest);
    let message = M::decode(&mut r, read_as)?;
    if version <= highest && !r.is_empty() {
        return Err(r.error(DecodeErrorKind::TrailingBytes(r.remaining())));
    }
    Ok((version, message))
}
