use kafka_wire::KafkaMessage;

// `Uuid` is not nullable in Kafka; the derive cannot see that through an alias, the trait
// system does.
type Id = kafka_wire::Uuid;

#[derive(KafkaMessage)]
#[kafka(versions = "0-9", flexible = "none")]
struct Produce {
    #[kafka(versions = "0+", nullable = "0+")]
    id: Option<Id>,
}

fn main() {}
