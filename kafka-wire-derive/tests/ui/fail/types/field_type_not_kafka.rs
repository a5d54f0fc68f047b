use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
    #[kafka(versions = "0+")]
    timeout: std::time::Duration,
}

fn main() {}
