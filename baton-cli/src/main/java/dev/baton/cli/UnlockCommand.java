package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonAdmin;
import dev.baton.LockInfo;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton unlock NAME --force}: takes every hold under a name away from its holders ({@link
 * BatonAdmin#forceUnlock}), after showing what it will remove and asking. The holders are not told at once: each
 * learns at its next renewal that its lease is gone (its lost-lease notice fires) and should stop; until then it may
 * still act, which is what fencing tokens guard against.
 */
@Command(name = "unlock", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Remove the holds under NAME, whoever holds them: a plain or fair lock's holder, a read-write "
                + "lock's writer and readers, a semaphore's leases, an election's leader. Waiters are woken.",
            "Shows what it will remove and asks on a terminal (--yes to skip). The holder learns at its next renewal "
                + "that it lost its lease; the fencing counter stays, so the next holder's token is higher."})
final class UnlockCommand extends ConnectedCommand {

    @Parameters(paramLabel = "NAME", description = "The name the application uses.")
    String name;

    @Option(names = "--force", description = "Required: say that you mean to take the lock from a live holder.")
    boolean force;

    @Option(names = "--kind", paramLabel = "KIND", description = "Only this kind: lock, fair, rw, semaphore, "
            + "election. Default: every kind held under NAME.")
    String kind;

    @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
    boolean yes;

    /** {@code --kind}, read by {@link #check()}; null for every kind. */
    private BatonAdmin.Kind only;

    @Override
    void check() {
        if (!force) {
            throw new CliFailure(ExitStatus.USAGE, "unlock takes the lock away from whoever holds it: add --force");
        }
        only = kind == null ? null : Kinds.parse(kind);
        if (only == BatonAdmin.Kind.LATCH || only == BatonAdmin.Kind.RATE_LIMITER) {
            throw new CliFailure(ExitStatus.USAGE, "--kind " + only.keyword() + " has no holders"
                    + (only == BatonAdmin.Kind.RATE_LIMITER ? ": use 'baton limiter reset " + name + "'" : ""));
        }
    }

    @Override
    int run(Baton baton, PrintWriter out) {
        LockInfo info = baton.inspect(name);
        List<LockInfo> held = new ArrayList<>();
        for (LockInfo o : all(info)) {
            if (o.holders() > 0 && (only == null || Kinds.of(o.kind()) == only)) {
                held.add(o);
            }
        }
        if (held.isEmpty()) {
            if (output.json()) {
                output.printJson(out, result(List.of()));
            } else {
                out.println("nothing " + (only == null ? "" : "of kind " + only.keyword() + " ")
                        + "is held under '" + name + "': nothing to remove");
            }
            return ExitStatus.OK.code();
        }
        Instant now = Instant.now();
        if (!output.json()) {
            out.println("held under '" + name + "':");
            describe(held, now).print(out, output);
        }
        Confirmation.ask(yes, "Remove " + (held.size() == 1 ? "this hold" : "these holds") + "?", out);
        Set<BatonAdmin.Kind> kinds = new LinkedHashSet<>();
        held.forEach(o -> kinds.add(Kinds.of(o.kind())));
        List<Map<String, Object>> removed = new ArrayList<>();
        for (BatonAdmin.Kind k : kinds) {
            boolean did = baton.admin().forceUnlock(name, k);
            if (did) {
                for (LockInfo o : held) {
                    if (Kinds.of(o.kind()) == k) {
                        o.allHolders().forEach(h -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("kind", k.keyword());
                            m.putAll(HolderView.json(h));
                            removed.add(m);
                        });
                    }
                }
            }
            if (!output.json()) {
                out.println(did ? "removed the " + Kinds.noun(k) + " '" + name + "'"
                        : "the " + Kinds.noun(k) + " '" + name + "' was no longer held: nothing removed");
            }
        }
        if (output.json()) {
            output.printJson(out, result(removed));
        } else if (!removed.isEmpty()) {
            out.println("Each holder learns at its next renewal (within its lease) that it lost its lease, and "
                    + "stops if it heeds its lost-lease notice; until then it may still act. Fencing tokens keep "
                    + "increasing, so a resource that checks them rejects its late writes.");
        }
        return ExitStatus.OK.code();
    }

    private Map<String, Object> result(List<Map<String, Object>> removed) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("namespace", connection.namespace());
        m.put("removed", removed);
        return m;
    }

    private static List<LockInfo> all(LockInfo info) {
        List<LockInfo> all = new ArrayList<>();
        all.add(info);
        all.addAll(info.otherKinds());
        return all;
    }

    private static Table describe(List<LockInfo> held, Instant now) {
        Table t = new Table("KIND", "HOST", "PID", "THREAD", "OWNED BY", "HELD SINCE", "LEASE LEFT", "TOKEN");
        for (LockInfo o : held) {
            for (LockInfo.Holder h : o.allHolders()) {
                t.row(Kinds.of(o.kind()).keyword(), h.host(), h.pid(), h.thread(), HolderView.owner(h),
                        HolderView.sinceText(h.fencingToken(), now), HumanDuration.format(h.remainingLease()),
                        h.fencingToken());
            }
        }
        return t;
    }
}
