extension KeyedDecodingContainer {
    /// A string member, or `nil` when it is missing, empty or of another type: how the optional members of an
    /// `id_token`, a UserInfo answer and a metadata document are read, so that a quirk in one never fails the rest.
    func nonEmptyString(forKey key: Key) -> String? {
        guard let value = try? decodeIfPresent(String.self, forKey: key), !value.isEmpty else { return nil }
        return value
    }
}
