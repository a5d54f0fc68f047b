//! Interop tests against other Kafka implementations (see tests/).
