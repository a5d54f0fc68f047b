use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce<T> {
    #[kafka(versions = "0+")]
    acks: T,
}

fn main() {}
