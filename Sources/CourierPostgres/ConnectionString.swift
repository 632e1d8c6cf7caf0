// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import CLibPQ
    import Foundation

    /// What an error, a log or ``PostgresDatabase/connectionDescription`` may show of a
    /// connection string: libpq reads it (`PQconninfoParse`, so every form libpq accepts is read
    /// as libpq reads it: quotes and backslash escapes, URIs with percent-encoding, userinfo,
    /// query parameters, several hosts) and the description is rebuilt from the options it
    /// found, each secret option (`password`, `sslpassword`) shown as `***`. A string libpq
    /// cannot read is not shown at all.
    enum ConnectionString {
        /// What is shown of a connection string libpq cannot read.
        static let unreadable = "(a connection string libpq cannot read; not shown)"

        /// One option libpq read.
        struct Option: Equatable {
            let keyword: String
            let value: String
            /// A password-like option (libpq's display character `*`).
            let isSecret: Bool
        }

        /// The options libpq reads from `conninfo` (those given a value), in libpq's order, or
        /// `nil` when it cannot read it.
        static func options(_ conninfo: String) -> [Option]? {
            var message: UnsafeMutablePointer<CChar>?
            guard let parsed = PQconninfoParse(conninfo, &message) else {
                if let message { PQfreemem(message) }
                return nil
            }
            defer { PQconninfoFree(parsed) }
            var options: [Option] = []
            var cursor = parsed
            while let keyword = cursor.pointee.keyword {
                if let value = cursor.pointee.val {
                    let display = cursor.pointee.dispchar.map { String(cString: $0) } ?? ""
                    options.append(
                        Option(
                            keyword: String(cString: keyword), value: String(cString: value),
                            isSecret: display.contains("*")))
                }
                cursor += 1
            }
            return options
        }

        /// `conninfo` as libpq reads it, in key/value form, with every secret shown as `***`;
        /// ``unreadable`` when libpq cannot read it.
        static func describing(_ conninfo: String) -> String {
            guard let options = options(conninfo) else { return unreadable }
            let first = ["host", "hostaddr", "port", "dbname", "user"]
            let ordered =
                first.compactMap { keyword in options.first { $0.keyword == keyword } }
                + options.filter { !first.contains($0.keyword) }
            return ordered.map { option in
                option.keyword + "=" + (option.isSecret ? "***" : quoted(option.value))
            }.joined(separator: " ")
        }

        /// `reason` (libpq's or the server's text about `conninfo`) without the secrets of
        /// `conninfo`: each secret's value is replaced by `***` wherever it appears. When libpq
        /// cannot read `conninfo`, its message may quote the string itself: every quoted
        /// fragment is hidden. Anything that still looks like `password=…` is hidden too.
        static func redacting(_ reason: String, of conninfo: String) -> String {
            var result = reason
            if let options = options(conninfo) {
                for option in options where option.isSecret && !option.value.isEmpty {
                    result = result.replacingOccurrences(of: option.value, with: "***")
                }
            } else {
                result = result.replacing(/"[^"]*"/, with: "\"***\"")
            }
            return redactingPasswordLikeText(result)
        }

        /// Hides whatever follows `password=` (up to the next unescaped white space, or a
        /// whole quoted value) and the password of a URI's userinfo (`scheme://user:…@`): for
        /// free text, where no parser can say where a password ends, so this hides too much
        /// rather than too little.
        static func redactingPasswordLikeText(_ text: String) -> String {
            text
                .replacing(
                    /(?i)(password\s*=\s*)('(?:[^'\\]|\\.|'')*'?|(?:[^\s\\]|\\.?)*)/,
                    with: { "\($0.output.1)***" }
                )
                .replacing(/(?i)(postgres(?:ql)?:\/\/[^:\/@\s]*:)[^\s]*@/, with: { "\($0.output.1)***@" })
        }

        /// A value as the key/value form writes it: bare when it can be, else in single quotes
        /// with `\` and `'` escaped.
        static func quoted(_ value: String) -> String {
            let bare = !value.isEmpty && value.allSatisfy { !$0.isWhitespace && $0 != "'" && $0 != "\\" && $0 != "=" }
            if bare { return value }
            return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
                + "'"
        }
    }

#endif
