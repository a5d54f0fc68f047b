use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "0+")]
struct Produce {
    #[kafka(versions = "0+", tagged = "0+", tag = "0")]
    acks: i16,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {}
