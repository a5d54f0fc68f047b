//! Kafka's error codes: the `int16` of every `error_code` field, with Java's names, whether
//! the error is retriable, and the message Java gives.

use std::fmt;

mod table;

/// What Kafka's table says about one code.
pub(crate) struct Info {
    name: &'static str,
    retriable: bool,
    /// The Java exception's simple class name; empty for `NONE`.
    exception: &'static str,
    message: &'static str,
}

/// A Kafka error code, as carried in every `error_code` field (an `int16` on the wire).
///
/// Any `i16` is an `ErrorCode`: a newer broker may send a code this table does not know, and
/// it must survive decoding and re-encoding. The associated constants are Kafka's own names
/// (`org.apache.kafka.common.protocol.Errors` of kafka-clients 4.4.0, codes -1 to 136), and
/// [`name`](Self::name), [`is_retriable`](Self::is_retriable) and [`message`](Self::message)
/// give what Java's table says about a code.
///
/// ```
/// use kafka_wire::ErrorCode;
///
/// let e = ErrorCode::from(3_i16);
/// assert_eq!(e, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
/// assert_eq!(e.name(), Some("UNKNOWN_TOPIC_OR_PARTITION"));
/// assert!(e.is_retriable());
/// assert_eq!(e.message(), Some("This server does not host this topic-partition."));
/// assert_eq!(e.to_string(), "UNKNOWN_TOPIC_OR_PARTITION (3)");
/// // The generated messages keep the `i16`; set one from a constant:
/// let error_code: i16 = ErrorCode::NOT_LEADER_OR_FOLLOWER.code();
/// assert_eq!(error_code, 6);
/// // A code Kafka 4.4.0 does not define keeps its number.
/// assert_eq!(ErrorCode(999).name(), None);
/// assert_eq!(ErrorCode(999).to_string(), "unknown error code 999");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ErrorCode(pub i16);

impl ErrorCode {
    /// The code as it goes on the wire.
    pub const fn code(self) -> i16 {
        self.0
    }

    /// Whether this is an error: any code but `NONE` (0).
    pub const fn is_error(self) -> bool {
        self.0 != 0
    }

    fn info(self) -> Option<&'static Info> {
        // The table runs from -1 without gaps (the generator checks it).
        usize::try_from(i32::from(self.0) + 1)
            .ok()
            .and_then(|i| table::TABLE.get(i))
    }

    /// Java's name (`UNKNOWN_TOPIC_OR_PARTITION`); `None` for a code Kafka does not define.
    pub fn name(self) -> Option<&'static str> {
        self.info().map(|i| i.name)
    }

    /// Whether Java's exception for it is a `RetriableException` (the request may succeed if
    /// retried). `false` for a code Kafka does not define.
    pub fn is_retriable(self) -> bool {
        self.info().is_some_and(|i| i.retriable)
    }

    /// The message Java's exception carries by default (what a Java broker puts in an
    /// `error_message` field it has nothing more specific for); `"NONE"` for 0, `None` for a
    /// code Kafka does not define.
    pub fn message(self) -> Option<&'static str> {
        self.info().map(|i| i.message)
    }

    /// The simple name of Java's exception class (`UnknownTopicOrPartitionException`); `None`
    /// for `NONE` and for a code Kafka does not define.
    pub fn exception(self) -> Option<&'static str> {
        self.info().map(|i| i.exception).filter(|e| !e.is_empty())
    }

    /// The code of a Java name (`"NOT_COORDINATOR"`), ASCII case ignored.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        Self::ALL
            .iter()
            .copied()
            .find(|e| e.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }
}

impl From<i16> for ErrorCode {
    fn from(code: i16) -> Self {
        ErrorCode(code)
    }
}

impl From<ErrorCode> for i16 {
    fn from(e: ErrorCode) -> Self {
        e.0
    }
}

impl PartialEq<i16> for ErrorCode {
    fn eq(&self, other: &i16) -> bool {
        self.0 == *other
    }
}

impl PartialEq<ErrorCode> for i16 {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == other.0
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "unknown error code {}", self.0),
        }
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "ErrorCode::{n}"),
            None => write!(f, "ErrorCode({})", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spot checks against Kafka's `Errors.java` (4.4.0), read independently of the data file.
    #[test]
    fn matches_java() {
        assert_eq!(ErrorCode::ALL.len(), 138);
        assert_eq!(ErrorCode::ALL[0], ErrorCode::UNKNOWN_SERVER_ERROR);
        assert_eq!(ErrorCode::UNKNOWN_SERVER_ERROR.code(), -1);
        assert_eq!(ErrorCode::NONE.code(), 0);
        assert_eq!(ErrorCode::NOT_LEADER_OR_FOLLOWER.code(), 6);
        assert_eq!(ErrorCode::COORDINATOR_NOT_AVAILABLE.code(), 15);
        assert_eq!(ErrorCode::UNSUPPORTED_VERSION.code(), 35);
        assert_eq!(ErrorCode::UNKNOWN_TOPIC_ID.code(), 100);
        assert_eq!(ErrorCode::CONTROLLER_ID_NOT_REGISTERED.code(), 136);
        assert!(ErrorCode::LEADER_NOT_AVAILABLE.is_retriable());
        assert!(ErrorCode::REQUEST_TIMED_OUT.is_retriable());
        assert!(!ErrorCode::UNSUPPORTED_VERSION.is_retriable());
        assert!(!ErrorCode::TOPIC_AUTHORIZATION_FAILED.is_retriable());
        assert_eq!(
            ErrorCode::UNSUPPORTED_VERSION.message(),
            Some("The version of API is not supported.")
        );
        assert_eq!(
            ErrorCode::UNSUPPORTED_VERSION.exception(),
            Some("UnsupportedVersionException")
        );
        assert_eq!(ErrorCode::NONE.exception(), None);
        assert_eq!(ErrorCode::NONE.message(), Some("NONE"));
        for (i, e) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(i32::from(e.code()), i as i32 - 1);
            assert_eq!(ErrorCode::from_name(e.name().unwrap()), Some(*e));
        }
        assert_eq!(ErrorCode(137).name(), None);
        assert_eq!(ErrorCode(-2).name(), None);
        assert_eq!(ErrorCode(i16::MIN).message(), None);
        assert!(!ErrorCode(i16::MAX).is_retriable());
        assert_eq!(
            ErrorCode::from_name("not_coordinator"),
            Some(ErrorCode::NOT_COORDINATOR)
        );
        assert_eq!(ErrorCode::from_name("NO_SUCH_ERROR"), None);
        assert_eq!(
            format!("{:?}", ErrorCode(3)),
            "ErrorCode::UNKNOWN_TOPIC_OR_PARTITION"
        );
        assert_eq!(format!("{:?}", ErrorCode(500)), "ErrorCode(500)");
    }
}
