use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
#[kafka(api_key = 0, request, versions = "0-9")]
struct Produce {
    #[kafka(versions = "0+")]
    acks: i16,
}

fn main() {}
