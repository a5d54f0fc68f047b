use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+", nullable = "3+")]
    transactional_id: kafka_wire::Str,
}

fn main() {}
