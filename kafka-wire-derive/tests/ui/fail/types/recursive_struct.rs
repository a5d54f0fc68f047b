use kafka_wire::KafkaMessage;

// A struct inside itself would let the input choose the recursion depth of decoding.
#[derive(KafkaMessage, Debug, Clone, PartialEq)]
#[kafka(versions = "0", flexible = "none")]
struct Node {
    #[kafka(versions = "0+")]
    value: i32,
    #[kafka(versions = "0+")]
    children: Vec<Node>,
}

fn main() {}
