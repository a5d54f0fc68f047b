//! Kafka API messages declared with `#[derive(KafkaMessage)]` (work in progress).
