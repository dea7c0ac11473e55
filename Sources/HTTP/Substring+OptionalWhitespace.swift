extension Substring {
    /// Without leading and trailing optional whitespace (RFC 9110 §5.6.3: spaces and tabs), as field values are
    /// compared. Foundation's `trimmingCharacters` bridges through NSString and cost more than a whole request.
    public var trimmingOptionalWhitespace: Substring {
        var trimmed = self
        while let first = trimmed.utf8.first, first == ASCII.space || first == ASCII.tab { trimmed = trimmed.dropFirst() }
        while let last = trimmed.utf8.last, last == ASCII.space || last == ASCII.tab { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
