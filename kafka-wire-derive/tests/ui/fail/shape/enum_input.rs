use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
enum Acks {
    None,
    Leader,
    All,
}

fn main() {}
