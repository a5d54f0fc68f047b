use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "3+")]
struct Produce {
    #[kafka(versions = "3+", tagged = "3+")]
    acks: i16,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {}
