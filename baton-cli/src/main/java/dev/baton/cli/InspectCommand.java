package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonAdmin;
import dev.baton.LockInfo;
import dev.baton.LockType;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code baton inspect NAME}: everything under one name, from one atomic read of every lock kind
 * ({@link Baton#inspect}) and one of the rate limiter of that name ({@link BatonAdmin#rateLimiter}): holders with
 * host, pid, thread or lease, held since, lease left and fencing token; waiters; a semaphore's permits; an election's
 * leader and epoch; a latch's count; each limit's use, remaining permits and reset.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show who holds what under NAME, of every kind: plain, fair and read-write locks, semaphore, "
                + "election, count-down latch and rate limiter.",
            "A multi-lock has no object of its own: inspect its member names. Exit status 0 whether or not anything "
                + "is held (the output says)."})
final class InspectCommand extends ConnectedCommand {
    /** The most waiters of a queue shown. */
    static final int QUEUE_SHOWN = 100;


    @Parameters(paramLabel = "NAME", description = "The name the application uses.")
    String name;

    @Override
    int run(Baton baton, PrintWriter out) {
        LockInfo info = baton.inspect(name);
        List<BatonAdmin.LimitState> limits = baton.config().redlockMasters().isEmpty()
                ? baton.admin().rateLimiter(name) : List.of();
        Instant now = Instant.now();
        List<LockInfo> objects = new ArrayList<>();
        objects.add(info);
        objects.addAll(info.otherKinds());
        if (output.json()) {
            output.printJson(out, json(baton, info, objects, limits));
        } else {
            text(baton, out, info, objects, limits, now);
        }
        return ExitStatus.OK.code();
    }

    private Map<String, Object> json(Baton baton, LockInfo info, List<LockInfo> objects,
                                     List<BatonAdmin.LimitState> limits) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("namespace", connection.namespace());
        m.put("locked", info.isLocked());
        List<Object> list = new ArrayList<>();
        for (LockInfo o : objects) {
            if (o.holders() == 0 && o.waiting() == 0 && o.permits() == 0 && o != info) {
                continue;
            }
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("kind", Kinds.of(o.kind()).keyword());
            j.put("holders", o.allHolders().stream().map(HolderView::json).toList());
            j.put("waiting", o.waiting());
            if (o.kind() == LockType.FAIR || o.kind() == LockType.SEMAPHORE) {
                j.put("queue", queue(baton, o).stream().map(InspectCommand::json).toList());
            }
            if (o.kind() == LockType.SEMAPHORE) {
                j.put("permits", o.permits());
                j.put("availablePermits", o.availablePermits());
            } else if (o.kind() == LockType.LATCH) {
                j.put("count", o.permits());
            } else if (o.kind() == LockType.ELECTION) {
                j.put("epoch", o.holder().map(LockInfo.Holder::fencingToken).orElse(null));
            }
            j.put("lastFencingToken", o.lastFencingToken());
            list.add(j);
        }
        m.put("objects", list);
        m.put("rateLimiter", limits.stream().map(InspectCommand::json).toList());
        return m;
    }

    /** The queue of a fair lock or a semaphore with waiters (at most {@value #QUEUE_SHOWN}); empty otherwise. */
    private List<BatonAdmin.Waiter> queue(Baton baton, LockInfo o) {
        if (o.waiting() == 0 || (o.kind() != LockType.FAIR && o.kind() != LockType.SEMAPHORE)) {
            return List.of();
        }
        return baton.admin().queue(name, Kinds.of(o.kind()), QUEUE_SHOWN);
    }

    private static Map<String, Object> json(BatonAdmin.Waiter w) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("instance", w.batonInstance());
        j.put("host", w.host());
        j.put("pid", w.pid());
        j.put("thread", w.thread());
        j.put("permits", w.permits());
        j.put("placeKeptMs", w.placeKept().toMillis());
        return j;
    }

    static Map<String, Object> json(BatonAdmin.LimitState l) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("position", l.index());
        j.put("algorithm", l.algorithm().name());
        j.put("permits", l.permits() == 0 ? null : l.permits());
        j.put("periodMs", l.period().toMillis());
        j.put("used", l.used());
        j.put("remaining", l.remaining() < 0 ? null : l.remaining());
        j.put("resetAfterMs", l.resetAfter().toMillis());
        return j;
    }

    private void text(Baton baton, PrintWriter out, LockInfo info, List<LockInfo> objects,
                      List<BatonAdmin.LimitState> limits,
                      Instant now) {
        boolean any = false;
        for (LockInfo o : objects) {
            boolean shown = o.holders() > 0 || o.waiting() > 0 || (o.kind() == LockType.LATCH && o.permits() > 0);
            if (!shown) {
                continue;
            }
            any = true;
            out.println(output.bold(headline(o)));
            if (!o.allHolders().isEmpty()) {
                Table t = new Table("HOST", "PID", "THREAD", "OWNED BY", "HELD SINCE", "LEASE LEFT", "TOKEN",
                        o.kind() == LockType.SEMAPHORE ? "PERMITS" : "HOLDS");
                for (LockInfo.Holder h : o.allHolders()) {
                    t.row(h.host(), h.pid(), h.thread(), HolderView.owner(h), HolderView.sinceText(h.fencingToken(),
                            now), HumanDuration.format(h.remainingLease()), h.fencingToken(),
                            o.kind() == LockType.SEMAPHORE ? h.permits() : h.holdCount());
                }
                t.print(out, output);
            }
            List<BatonAdmin.Waiter> queue = queue(baton, o);
            if (!queue.isEmpty()) {
                out.println("queue, first in line first:");
                Table q = new Table("#", "HOST", "PID", "THREAD", o.kind() == LockType.SEMAPHORE ? "PERMITS" : "",
                        "PLACE KEPT");
                int position = 1;
                for (BatonAdmin.Waiter w : queue) {
                    q.row(position++, w.host(), w.pid(), w.thread(), o.kind() == LockType.SEMAPHORE ? w.permits()
                            : "", HumanDuration.format(w.placeKept()));
                }
                q.print(out, output);
            }
            out.println();
        }
        if (!limits.isEmpty()) {
            any = true;
            out.println(output.bold("rate limiter '" + name + "'"));
            RateLimitTable.of(limits).print(out, output);
            out.println();
        }
        if (!any) {
            out.println("nothing is held under '" + name + "' in namespace '" + connection.namespace() + "'"
                    + (info.lastFencingToken() > 0 ? " (plain lock's last fencing token " + info.lastFencingToken()
                    + ", issued " + HolderView.sinceText(info.lastFencingToken(), now) + ")" : ""));
        }
    }

    private String headline(LockInfo o) {
        String what = Kinds.noun(Kinds.of(o.kind())) + " '" + name + "'";
        return switch (o.kind()) {
            case SEMAPHORE -> what + ": " + (o.permits() - o.availablePermits()) + " of " + o.permits()
                    + " permits held, " + o.availablePermits() + " free" + waiting(o);
            case ELECTION -> what + ": " + o.holder().map(h -> "leader " + h.host() + " pid " + h.pid() + ", epoch "
                    + h.fencingToken()).orElse("no leader") + waiting(o);
            case LATCH -> what + ": count " + o.permits();
            case READ -> what + ": " + o.holders() + (o.holders() == 1 ? " reader" : " readers") + waiting(o);
            case WRITE -> what + ": held by a writer" + (o.holders() > 1 ? " (and " + (o.holders() - 1)
                    + " read holds)" : "") + waiting(o);
            default -> what + ": " + (o.holders() > 0 ? "held" : "free") + waiting(o);
        };
    }

    private static String waiting(LockInfo o) {
        return o.waiting() > 0 ? ", " + o.waiting() + " waiting" : "";
    }
}
