extension Array {
    /// The elements in the order they take turns in one chunk of a round: who goes first rotates with the round and
    /// the chunk, so that a burst of load from elsewhere on the machine hits every one alike and none always follows
    /// the same neighbour.
    func inTurn(round: Int, step: Int = 0) -> [Element] {
        indices.map { self[($0 + round + step) % count] }
    }
}
