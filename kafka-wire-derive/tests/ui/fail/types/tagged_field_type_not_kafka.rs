use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "0+")]
struct Produce {
    #[kafka(versions = "0+", tag = 0, tagged = "0+")]
    timeout: std::time::Duration,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {}
