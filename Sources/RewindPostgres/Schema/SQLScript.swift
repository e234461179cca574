/// A SQL script cut into its statements: postgres-nio sends each query as a prepared statement,
/// which holds one command, while a migration file holds many.
///
/// Cuts at `;` outside comments (`--`, `/* */`), quoted strings and identifiers (`'…'`, `"…"`,
/// doubled quotes inside) and dollar-quoted bodies (`$$…$$`, `$tag$…$tag$`), so a function body
/// in a later migration stays whole. Statements that are only whitespace and comments are left
/// out.
enum SQLScript {
    static func statements(_ script: String) -> [String] {
        let characters = Array(script)
        var statements: [String] = [], current = "", meaningful = false, index = 0
        func take(_ count: Int) {
            current.append(contentsOf: characters[index..<min(index + count, characters.count)])
            index += count
        }
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "-" where next == "-":
                while index < characters.count, characters[index] != "\n" { take(1) }
            case "/" where next == "*":
                take(2)
                while index < characters.count, !(characters[index] == "*" && index + 1 < characters.count && characters[index + 1] == "/") { take(1) }
                take(2)
            case "'", "\"":
                meaningful = true
                take(1)
                while index < characters.count {
                    if characters[index] == character {
                        if index + 1 < characters.count, characters[index + 1] == character { take(2); continue }
                        take(1)
                        break
                    }
                    take(1)
                }
            case "$" where dollarTag(characters, at: index) != nil:
                meaningful = true
                let tag = dollarTag(characters, at: index)!
                take(tag.count)
                while index < characters.count, !matches(characters, tag, at: index) { take(1) }
                take(tag.count)
            case ";":
                if meaningful { statements.append(current.trimmingWhitespace()) }
                current = ""
                meaningful = false
                index += 1
            default:
                if !character.isWhitespace { meaningful = true }
                take(1)
            }
        }
        if meaningful { statements.append(current.trimmingWhitespace()) }
        return statements
    }

    /// `$$` or `$tag$` starting at `index`, if one does.
    private static func dollarTag(_ characters: [Character], at index: Int) -> [Character]? {
        var end = index + 1
        while end < characters.count, characters[end] == "_" || characters[end].isLetter || (end > index + 1 && characters[end].isNumber) { end += 1 }
        guard end < characters.count, characters[end] == "$" else { return nil }
        return Array(characters[index...end])
    }

    private static func matches(_ characters: [Character], _ tag: [Character], at index: Int) -> Bool {
        index + tag.count <= characters.count && Array(characters[index..<index + tag.count]) == tag
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
