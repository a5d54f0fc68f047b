use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "3+", nullable = "0+")]
    transactional_id: Option<kafka_wire::Str>,
}

fn main() {}
