use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "3+")]
struct Produce {
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    acks: i16,
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    timeout_ms: i32,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {}
