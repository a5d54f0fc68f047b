use kafka_wire::KafkaMessage;

#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0+", flexible = "none")]
struct M {
    #[kafka(versions = "0+", default = -1)]
    a: i32,
    #[kafka(versions = "0+", default = 5)]
    b: i64,
    #[kafka(versions = "0+", default = true)]
    c: bool,
}

fn main() {}
