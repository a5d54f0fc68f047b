use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+", nulable = "0+")]
    name: Option<kafka_wire::Str>,
}

fn main() {}
