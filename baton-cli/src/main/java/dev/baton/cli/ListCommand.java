package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonAdmin;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton list}: the objects of the namespace, found with {@code SCAN} ({@link BatonAdmin#list}), never
 * {@code KEYS}: each call examines about a thousand keys, so a Redis with millions of keys keeps answering its
 * applications while the listing runs.
 */
@Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"List the objects of the namespace: kind, name, and whether each is active (held, waited for, "
                + "counting) or idle (only its fencing counter is left, for a day after its last use).",
            "Uses SCAN, never KEYS: safe on a production Redis with millions of keys (one call per ~1,000 keys)."})
final class ListCommand extends ConnectedCommand {

    @Option(names = "--kind", paramLabel = "KIND", description = "Only this kind: lock, fair, rw, semaphore, "
            + "election, latch, rate.")
    String kind;

    @Option(names = "--match", paramLabel = "GLOB", description = "Only names matching GLOB (* ? [abc], \\ escapes). "
            + "Default: *.")
    String match = "*";

    @Option(names = "--active", description = "Only active objects (leave out idle ones).")
    boolean active;

    /** {@code --kind}, read by {@link #check()}. */
    private Optional<BatonAdmin.Kind> only;

    @Option(names = "--limit", paramLabel = "N", description = "Stop after N objects. Default: 1000.")
    int limit = 1000;

    @Override
    void check() {
        if (limit < 1) {
            throw new CliFailure(ExitStatus.USAGE, "--limit must be at least 1, was " + limit);
        }
        if (match.isBlank()) {
            throw new CliFailure(ExitStatus.USAGE, "--match must not be blank");
        }
        only = kind == null ? Optional.empty() : Optional.of(Kinds.parse(kind));
    }

    @Override
    int run(Baton baton, PrintWriter out) {
        BatonAdmin.Listing listing = baton.admin().list(only, match, limit);
        List<BatonAdmin.Entry> entries = listing.entries().stream().filter(e -> !active || e.active()).toList();
        if (output.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("namespace", connection.namespace());
            m.put("objects", entries.stream().map(ListCommand::json).toList());
            m.put("complete", listing.complete());
            m.put("scanCalls", listing.scanCalls());
            output.printJson(out, m);
            return ExitStatus.OK.code();
        }
        if (entries.isEmpty()) {
            out.println("no objects" + (match.equals("*") ? "" : " matching '" + match + "'") + " in namespace '"
                    + connection.namespace() + "'");
        } else {
            Table t = new Table("KIND", "NAME", "STATE");
            entries.forEach(e -> t.row(e.kind().keyword(), e.name(), e.active() ? "active" : "idle"));
            t.print(out, output);
        }
        out.println(output.dim(entries.size() + (entries.size() == 1 ? " object" : " objects") + " ("
                + listing.scanCalls() + " SCAN calls)" + (listing.complete() ? ""
                : "; stopped at --limit " + limit + ": there are more")));
        return ExitStatus.OK.code();
    }

    private static Map<String, Object> json(BatonAdmin.Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", e.kind().keyword());
        m.put("name", e.name());
        m.put("active", e.active());
        return m;
    }
}
