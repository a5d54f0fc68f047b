//! Control records: transaction markers and KRaft's control records, typed.
//!
//! The KRaft schemas (`LeaderChangeMessage.json`, `SnapshotHeaderRecord.json`,
//! `SnapshotFooterRecord.json`, `KRaftVersionRecord.json`, `VotersRecord.json` in Kafka) are
//! declared here with the derive, independently of the `messages` crate, so the runtime can
//! read them on its own. Kafka serializes each at version 0.

use bytes::Bytes;

use super::error::RecordsErrorKind as K;
use super::read::Record;
use crate::{KafkaMessage, Reader, Str, UnknownTaggedFields, Uuid};

/// The type in a control record's key (`ControlRecordType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    /// A transaction abort marker (0).
    Abort,
    /// A transaction commit marker (1).
    Commit,
    /// A KRaft leader change (2).
    LeaderChange,
    /// The first record of a KRaft snapshot (3).
    SnapshotHeader,
    /// The last record of a KRaft snapshot (4).
    SnapshotFooter,
    /// The KRaft protocol version (5).
    KRaftVersion,
    /// The KRaft voter set (6).
    KRaftVoters,
    /// A type this crate does not know (Java ignores these).
    Unknown(i16),
}

impl ControlRecordType {
    /// The type of id `id`.
    pub fn from_id(id: i16) -> Self {
        match id {
            0 => Self::Abort,
            1 => Self::Commit,
            2 => Self::LeaderChange,
            3 => Self::SnapshotHeader,
            4 => Self::SnapshotFooter,
            5 => Self::KRaftVersion,
            6 => Self::KRaftVoters,
            n => Self::Unknown(n),
        }
    }

    /// The id.
    pub fn id(self) -> i16 {
        match self {
            Self::Abort => 0,
            Self::Commit => 1,
            Self::LeaderChange => 2,
            Self::SnapshotHeader => 3,
            Self::SnapshotFooter => 4,
            Self::KRaftVersion => 5,
            Self::KRaftVoters => 6,
            Self::Unknown(n) => n,
        }
    }

    /// Reads a control record key: i16 version (>= 0; a higher version is read as 0), i16 type.
    pub fn from_key(key: &[u8]) -> Result<Self, RecordsErrorKind> {
        let Some([v0, v1, t0, t1]) = key.first_chunk::<4>().copied() else {
            return Err(K::InvalidControlRecord(
                "control record key is shorter than 4 bytes",
            ));
        };
        if i16::from_be_bytes([v0, v1]) < 0 {
            return Err(K::InvalidControlRecord(
                "negative control record key version",
            ));
        }
        Ok(Self::from_id(i16::from_be_bytes([t0, t1])))
    }

    /// The 4-byte key of this type (version 0).
    pub fn key(self) -> [u8; 4] {
        let [a, b] = self.id().to_be_bytes();
        [0, 0, a, b]
    }
}

use super::RecordsErrorKind;

/// The value of a transaction marker (`EndTxnMarker`, not flexible).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EndTxnMarker {
    /// The schema version (0).
    pub version: i16,
    /// The transaction coordinator's epoch.
    pub coordinator_epoch: i32,
}

impl EndTxnMarker {
    /// Reads it as Java does: version >= 0 (higher read as 0), then the epoch; extra bytes
    /// are ignored.
    pub fn parse(value: &[u8]) -> Result<Self, RecordsErrorKind> {
        let Some([v0, v1, e0, e1, e2, e3]) = value.first_chunk::<6>().copied() else {
            return Err(K::InvalidControlRecord(
                "transaction marker value is shorter than 6 bytes",
            ));
        };
        let version = i16::from_be_bytes([v0, v1]);
        if version < 0 {
            return Err(K::InvalidControlRecord(
                "negative transaction marker version",
            ));
        }
        Ok(EndTxnMarker {
            version,
            coordinator_epoch: i32::from_be_bytes([e0, e1, e2, e3]),
        })
    }

    /// Its 6 bytes at version 0.
    pub fn to_bytes(self) -> [u8; 6] {
        let [a, b, c, d] = self.coordinator_epoch.to_be_bytes();
        [0, 0, a, b, c, d]
    }
}

/// `LeaderChangeMessage`: the leader of a KRaft quorum changed.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0-1", flexible = "0+")]
pub struct LeaderChangeMessage {
    /// The version of the leader change message.
    #[kafka(versions = "0+")]
    pub version: i16,
    /// The ID of the newly elected leader.
    #[kafka(versions = "0+")]
    pub leader_id: i32,
    /// The set of voters in the quorum for this epoch.
    #[kafka(versions = "0+")]
    pub voters: Vec<LeaderChangeVoter>,
    /// The voters who voted for the leader at the time of election.
    #[kafka(versions = "0+")]
    pub granting_voters: Vec<LeaderChangeVoter>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A voter of a [`LeaderChangeMessage`] (`Voter`).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+", name = "Voter")]
pub struct LeaderChangeVoter {
    /// The ID of the voter.
    #[kafka(versions = "0+")]
    pub voter_id: i32,
    /// The directory id of the voter.
    #[kafka(versions = "1+")]
    pub voter_directory_id: Uuid,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `SnapshotHeaderRecord`: the first record of a KRaft snapshot.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "0+")]
pub struct SnapshotHeaderRecord {
    /// The version of the snapshot header record.
    #[kafka(versions = "0+")]
    pub version: i16,
    /// The append time of the last record from the log contained in this snapshot.
    #[kafka(versions = "0+")]
    pub last_contained_log_timestamp: i64,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `SnapshotFooterRecord`: the last record of a KRaft snapshot.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "0+")]
pub struct SnapshotFooterRecord {
    /// The version of the snapshot footer record.
    #[kafka(versions = "0+")]
    pub version: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `KRaftVersionRecord`: the KRaft protocol version in use.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "0+")]
pub struct KRaftVersionRecord {
    /// The version of the kraft version record.
    #[kafka(versions = "0+")]
    pub version: i16,
    /// The kraft protocol version.
    #[kafka(versions = "0+", name = "KRaftVersion")]
    pub kraft_version: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// `VotersRecord`: the voter set of a KRaft quorum.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "0+")]
pub struct VotersRecord {
    /// The version of the voters record.
    #[kafka(versions = "0+")]
    pub version: i16,
    /// The set of voters in the quorum for this epoch.
    #[kafka(versions = "0+")]
    pub voters: Vec<VotersRecordVoter>,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A voter of a [`VotersRecord`] (`Voter`).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+", name = "Voter")]
pub struct VotersRecordVoter {
    /// The replica id of the voter in the topic partition.
    #[kafka(versions = "0+")]
    pub voter_id: i32,
    /// The directory id of the voter in the topic partition.
    #[kafka(versions = "0+")]
    pub voter_directory_id: Uuid,
    /// The endpoint that can be used to communicate with the voter.
    #[kafka(versions = "0+")]
    pub endpoints: Vec<VotersRecordEndpoint>,
    /// The range of versions of the protocol that the replica supports.
    #[kafka(versions = "0+", name = "KRaftVersionFeature")]
    pub kraft_version_feature: VotersRecordKRaftVersionFeature,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// An endpoint of a [`VotersRecordVoter`] (`Endpoint`).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+", name = "Endpoint")]
pub struct VotersRecordEndpoint {
    /// The name of the endpoint.
    #[kafka(versions = "0+")]
    pub name: Str,
    /// The hostname.
    #[kafka(versions = "0+")]
    pub host: Str,
    /// The port.
    #[kafka(versions = "0+")]
    pub port: u16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The supported KRaft versions of a [`VotersRecordVoter`] (`KRaftVersionFeature`).
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "0+", name = "KRaftVersionFeature")]
pub struct VotersRecordKRaftVersionFeature {
    /// The minimum supported KRaft protocol version.
    #[kafka(versions = "0+")]
    pub min_supported_version: i16,
    /// The maximum supported KRaft protocol version.
    #[kafka(versions = "0+")]
    pub max_supported_version: i16,
    /// Tagged fields this struct does not declare.
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A control record, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum ControlRecord {
    /// Transaction aborted.
    Abort(EndTxnMarker),
    /// Transaction committed.
    Commit(EndTxnMarker),
    /// KRaft leader change.
    LeaderChange(LeaderChangeMessage),
    /// KRaft snapshot header.
    SnapshotHeader(SnapshotHeaderRecord),
    /// KRaft snapshot footer.
    SnapshotFooter(SnapshotFooterRecord),
    /// KRaft protocol version.
    KRaftVersion(KRaftVersionRecord),
    /// KRaft voter set.
    KRaftVoters(VotersRecord),
    /// A control type this crate does not know, with its raw value.
    Unknown {
        /// The type id.
        type_id: i16,
        /// The value as stored.
        value: Option<Bytes>,
    },
}

fn kraft<T: KafkaMessage>(value: Option<&[u8]>) -> Result<T, RecordsErrorKind> {
    let Some(value) = value else {
        return Err(K::InvalidControlRecord("control record has a null value"));
    };
    // Control values are tiny; a copy keeps the decoded strings independent of the batch.
    let buf = Bytes::copy_from_slice(value);
    let mut r = Reader::new(&buf);
    T::decode(&mut r, 0)
        .map_err(|_| K::InvalidControlRecord("malformed KRaft control record value"))
}

impl ControlRecord {
    /// Reads the control record `record` (a record of a control batch): its key gives the
    /// type, its value the payload.
    pub fn parse(record: &Record<'_>) -> Result<Self, RecordsErrorKind> {
        let key = record.key.unwrap_or_default();
        let value = record.value;
        let marker = || {
            value
                .ok_or(K::InvalidControlRecord(
                    "transaction marker has a null value",
                ))
                .and_then(EndTxnMarker::parse)
        };
        Ok(match ControlRecordType::from_key(key)? {
            ControlRecordType::Abort => ControlRecord::Abort(marker()?),
            ControlRecordType::Commit => ControlRecord::Commit(marker()?),
            ControlRecordType::LeaderChange => ControlRecord::LeaderChange(kraft(value)?),
            ControlRecordType::SnapshotHeader => ControlRecord::SnapshotHeader(kraft(value)?),
            ControlRecordType::SnapshotFooter => ControlRecord::SnapshotFooter(kraft(value)?),
            ControlRecordType::KRaftVersion => ControlRecord::KRaftVersion(kraft(value)?),
            ControlRecordType::KRaftVoters => ControlRecord::KRaftVoters(kraft(value)?),
            ControlRecordType::Unknown(type_id) => ControlRecord::Unknown {
                type_id,
                value: value.map(Bytes::copy_from_slice),
            },
        })
    }

    /// The type.
    pub fn record_type(&self) -> ControlRecordType {
        match self {
            ControlRecord::Abort(_) => ControlRecordType::Abort,
            ControlRecord::Commit(_) => ControlRecordType::Commit,
            ControlRecord::LeaderChange(_) => ControlRecordType::LeaderChange,
            ControlRecord::SnapshotHeader(_) => ControlRecordType::SnapshotHeader,
            ControlRecord::SnapshotFooter(_) => ControlRecordType::SnapshotFooter,
            ControlRecord::KRaftVersion(_) => ControlRecordType::KRaftVersion,
            ControlRecord::KRaftVoters(_) => ControlRecordType::KRaftVoters,
            ControlRecord::Unknown { type_id, .. } => ControlRecordType::Unknown(*type_id),
        }
    }
}
