import Foundation
@testable import RewindPostgres
import RewindTestSupport
import Testing

@Suite("PostgreSQL locations")
struct PostgresLocationTests {
    @Test("a full URL gives every part; the description leaves the password out")
    func fullURL() throws {
        let location = try PostgresLocation(parsing: "postgres://fleet:s3cr%40t@db.internal:6543/logs?sslmode=require", environment: [:])
        #expect(location == PostgresLocation(host: "db.internal", port: 6543, user: "fleet", password: "s3cr@t", database: "logs", tls: .require))
        #expect(location.description == "postgres://fleet@db.internal:6543/logs?sslmode=require")
        #expect(try PostgresLocation(parsing: "postgresql://a@h/d", environment: [:]).description == "postgres://a@h:5432/d")
    }

    @Test("what the URL leaves out comes from the environment, then the defaults")
    func environment() throws {
        let environment = ["PGHOST": "10.0.0.5", "PGPORT": "5555", "PGUSER": "svc", "PGPASSWORD": "from-env", "PGDATABASE": "events", "PGSSLMODE": "disable"]
        #expect(try PostgresLocation(parsing: "postgres://", environment: environment)
            == PostgresLocation(host: "10.0.0.5", port: 5555, user: "svc", password: "from-env", database: "events", tls: .disable))
        // The URL wins over the environment.
        let given = try PostgresLocation(parsing: "postgres://me:pw@h:1/db?sslmode=prefer", environment: environment)
        #expect(given == PostgresLocation(host: "h", port: 1, user: "me", password: "pw", database: "db", tls: .prefer))
        let folder = try TemporaryDirectory()
        let defaults = try PostgresLocation(parsing: "postgres:///", environment: [:], home: folder.path)
        #expect(defaults.host == "127.0.0.1" && defaults.port == 5432 && defaults.password == nil && defaults.tls == .prefer)
        #expect(defaults.database == defaults.user, "the database is named after the user")
    }

    @Test("the password file: the first matching line, wildcards and escapes; ignored when others may read it")
    func passwordFile() throws {
        let folder = try TemporaryDirectory()
        let file = folder.file(".pgpass")
        try """
            # host:port:database:user:password
            other:5432:*:fleet:not-this-one
            db.internal:6543:logs:fleet:pa\\:ss\\\\word
            *:*:*:fleet:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try PostgresLocation(parsing: "postgres://fleet@db.internal:6543/logs", environment: [:], home: folder.path).password == #"pa:ss\word"#)
        #expect(try PostgresLocation(parsing: "postgres://fleet@elsewhere/x", environment: [:], home: folder.path).password == "fallback")
        #expect(try PostgresLocation(parsing: "postgres://nobody@elsewhere/x", environment: [:], home: folder.path).password == nil)
        // PGPASSFILE names another file; PGPASSWORD comes first.
        #expect(try PostgresLocation(parsing: "postgres://fleet@elsewhere/x", environment: ["PGPASSFILE": file], home: "/nonexistent").password == "fallback")
        #expect(try PostgresLocation(parsing: "postgres://fleet@elsewhere/x", environment: ["PGPASSWORD": "env"], home: folder.path).password == "env")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(try PostgresLocation(parsing: "postgres://fleet@elsewhere/x", environment: [:], home: folder.path).password == nil)
    }

    @Test("odd URLs get a clear error that never shows the password", arguments: [
        ("mysql://u:hunter2@h/db", "not a postgres:// URL: mysql://u:•••@h/db"),
        ("postgres://u:hunter2@h:0/db", "postgres://u:•••@h:0/db: port 0 is outside 1…65535"),
        ("postgres://u:hunter2@h:70000/db", "port 70000"),
        ("postgres://u:hunter2@h/a/b", "postgres://u:•••@h/a/b: the path must be one database name"),
        ("postgres://u:hunter2@h/db?sslmode=maybe", "sslmode=maybe is not supported: use disable, prefer, require, verify-full"),
        ("postgres://u:hunter2@h/db?timeout=3", "unknown parameter 'timeout'"),
        ("postgres://u:hunter2@h:-1/db", "u:•••@h:-1/db"),
        ("postgres://u:hunter2@%2Ftmp%2Fsocket/db", "Unix-domain sockets are not supported"),
    ])
    func oddURLs(url: String, message: String) {
        let error = #expect(throws: PostgresLocationError.self) { try PostgresLocation(parsing: url, environment: [:]) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description.contains("hunter2") == false)
    }

    @Test("a port in the environment that is not a number is refused")
    func badEnvironmentPort() {
        #expect(throws: PostgresLocationError.self) { try PostgresLocation(parsing: "postgres://h/db", environment: ["PGPORT": "fivefour"]) }
    }
}

@Suite("PostgreSQL migrations")
struct PostgresMigrationFilesTests {
    @Test("the embedded schema is exactly Migrations/postgres/*.sql")
    func embeddedMigrationsMatchFiles() throws {
        #expect(try embeddedMigrationDifferences(folder: "Migrations/postgres", generated: "Sources/RewindPostgres/Schema/EmbeddedMigrations.swift") == [])
    }
}

@Suite("SQL scripts")
struct SQLScriptTests {
    @Test("a script is cut at semicolons outside comments, strings, identifiers and dollar quotes")
    func statements() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE "odd;name" (id int); /* block; comment */
            INSERT INTO t VALUES ('it''s; fine');
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            DO $$ BEGIN PERFORM 1; END $$;
            ;  -- empty
            SELECT 2
            """
        #expect(SQLScript.statements(script) == [
            "-- a comment; with a semicolon\nCREATE TABLE \"odd;name\" (id int)",
            "/* block; comment */\nINSERT INTO t VALUES ('it''s; fine')",
            "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql",
            "DO $$ BEGIN PERFORM 1; END $$",
            "-- empty\nSELECT 2",
        ])
        #expect(SQLScript.statements("  -- nothing\n").isEmpty)
        #expect(SQLScript.statements("SELECT $1; SELECT 'unterminated") == ["SELECT $1", "SELECT 'unterminated"])
    }
}
