use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "3+")]
struct Produce {
    #[kafka(versions = "0+", flexible = "1+")]
    transactional_id: kafka_wire::Str,
    unknown_tagged_fields: kafka_wire::UnknownTaggedFields,
}

fn main() {}
