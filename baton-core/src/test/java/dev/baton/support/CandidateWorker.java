package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import dev.baton.Candidacy;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A candidate process for {@code ElectionProcessesIT}:
 * {@code TARGET RESOURCE_URI ID RECHECK_MS NAME=LEASE_MS[/RECHECK_MS]...}. For each election NAME it connects a Baton
 * of its own to TARGET (a Redis or Sentinel URI) with that watchdog lease and re-check interval (RECHECK_MS if none),
 * joins the election, and works as a leader would while it leads: every 20 ms it writes to the
 * {@link FencedResource} named NAME (on RESOURCE_URI, the application's database, apart from Baton's Redis) with its
 * epoch: the value written is {@code ID EPOCH N}, N counting the writes of the leadership.
 *
 * <p>The work loop runs like an application's: it writes with the epoch it was elected with until it learns that the
 * leadership ended, so a process that was frozen writes once more with its old epoch when it wakes (and a leadership
 * that ends for any reason but its own resignation gets one last write, the unit of work in hand), which the resource
 * must refuse if a newer leader has written. Every write's wall-clock time (microseconds, comparable across the
 * processes of one machine) is taken <em>before</em> {@link Leadership#isValid()} is asked, so a write whose check
 * said valid proves the leadership was valid, as this process believed, at that time.
 *
 * <p>Lines printed (times in wall-clock microseconds):
 * <ul>
 *   <li>{@code READY} once every candidacy is joined;</li>
 *   <li>{@code ELECTED NAME EPOCH TIME} and {@code REVOKED NAME EPOCH REASON TIME}, from the listener;</li>
 *   <li>{@code REFUSED NAME EPOCH TIME VALID_BEFORE VALID_AFTER} for every write the resource refused;</li>
 *   <li>{@code TERM NAME EPOCH FIRST LAST WRITES ACCEPTED} when the work loop learns a leadership ended: the first and
 *       last time it found the leadership valid (-1 if never);</li>
 *   <li>{@code RESIGNED NAME EPOCH [unconfirmed]}, {@code NOT-LEADING NAME}, {@code CLOSED NAME VIOLATIONS}, in
 *       answer to the stdin commands {@code RESIGN NAME} and {@code CLOSE NAME} (VIOLATIONS: what
 *       {@link LeadershipRecorder} found).</li>
 * </ul>
 */
public final class CandidateWorker {
    private static final long PACE_MILLIS = 20;

    private CandidateWorker() {
    }

    public static void main(String[] args) throws Exception {
        String target = args[0];
        String id = args[2];
        Duration defaultRecheck = Duration.ofMillis(Long.parseLong(args[3]));
        RedisClient client = RedisClient.create(args[1]);
        Map<String, Campaign> campaigns = new LinkedHashMap<>();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            for (int i = 4; i < args.length; i++) {
                String[] spec = args[i].split("[=/]");
                Duration lease = Duration.ofMillis(Long.parseLong(spec[1]));
                Duration recheck = spec.length > 2 ? Duration.ofMillis(Long.parseLong(spec[2])) : defaultRecheck;
                BatonConfig config = BatonConfig.builder().uri(target).watchdogLease(lease)
                        .commandTimeout(Duration.ofMillis(Math.min(1000, lease.toMillis() / 2)))
                        .recheckInterval(recheck).build();
                // Each campaign writes on a connection of its own: a frozen write of one must not hold up another.
                campaigns.put(spec[0], new Campaign(spec[0], id, Baton.connect(config),
                        new FencedResource(client.connect().sync(), spec[0])));
            }
            campaigns.values().forEach(Campaign::start);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            while ((command = in.readLine()) != null) {
                String[] words = command.split(" ");
                Campaign campaign = campaigns.get(words[1]);
                switch (words[0]) {
                    case "RESIGN" -> campaign.commands.add("RESIGN");
                    case "CLOSE" -> campaign.close();
                    default -> System.out.println("UNKNOWN " + command);
                }
            }
        } finally {
            campaigns.values().forEach(Campaign::close);
            client.shutdown();
        }
    }

    /** Wall-clock microseconds: the one clock all the processes of a machine share. */
    public static long micros() {
        Instant now = Instant.now();
        return TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + TimeUnit.NANOSECONDS.toMicros(now.getNano());
    }

    /** One election: its Baton, candidacy, listener and work loop. */
    private static final class Campaign implements LeadershipListener {
        private final String name;
        private final String id;
        private final Baton baton;
        private final FencedResource resource;
        private final LeadershipRecorder recorder = new LeadershipRecorder();
        private final BlockingQueue<Leadership> elected = new LinkedBlockingQueue<>();
        private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        private final Thread loop;
        /** The leadership the listener last told of, until it is revoked. */
        private volatile Leadership leading;
        private volatile boolean closed;
        private Candidacy candidacy;

        Campaign(String name, String id, Baton baton, FencedResource resource) {
            this.name = name;
            this.id = id;
            this.baton = baton;
            this.resource = resource;
            this.loop = new Thread(this::work, "work-" + name);
            loop.setDaemon(true);
        }

        void start() {
            loop.start();
            candidacy = baton.election(name).join(this);
        }

        @Override
        public void elected(Leadership leadership) {
            recorder.elected(leadership);
            leading = leadership;
            System.out.println("ELECTED " + name + " " + leadership.epoch() + " " + micros());
            elected.add(leadership);
        }

        @Override
        public void revoked(Leadership leadership, RevocationReason reason) {
            recorder.revoked(leadership, reason);
            leading = null;
            System.out.println("REVOKED " + name + " " + leadership.epoch() + " " + reason + " " + micros());
        }

        private void work() {
            try {
                while (!closed) {
                    Leadership term = elected.poll(PACE_MILLIS, TimeUnit.MILLISECONDS);
                    if (term != null) {
                        lead(term);
                    } else if (commands.poll() != null) {
                        System.out.println("NOT-LEADING " + name);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Works with one leadership until this process learns that it ended. */
        private void lead(Leadership term) throws InterruptedException {
            Term stats = new Term(term.epoch());
            while (true) {
                String command = commands.poll(PACE_MILLIS, TimeUnit.MILLISECONDS);
                if ("RESIGN".equals(command)) {
                    try {
                        term.resign();
                        System.out.println("RESIGNED " + name + " " + term.epoch());
                    } catch (IllegalMonitorStateException e) {
                        System.out.println("NOT-LEADING " + name);
                    } catch (BatonUnavailableException e) {
                        // Counts as resigned all the same; Redis lets the leadership expire with its lease.
                        System.out.println("RESIGNED " + name + " " + term.epoch() + " unconfirmed");
                    }
                    stats.print(name);
                    return;
                }
                // The write first, whatever the listener said meanwhile: this is the work a process frozen in the
                // pause above does when it wakes, before it can learn that it lost its leadership.
                stats.write(term);
                if (leading != term || closed) {
                    stats.write(term); // the unit of work in hand when the news came
                    stats.print(name);
                    return;
                }
            }
        }

        /** The writes of one leadership. */
        private final class Term {
            private final long epoch;
            private long first = -1;
            private long last = -1;
            private int writes;
            private int accepted;

            Term(long epoch) {
                this.epoch = epoch;
            }

            void write(Leadership term) {
                long before = micros();
                boolean validBefore = term.isValid();
                writes++;
                boolean ok = resource.writeAtLeast(epoch, id + " " + epoch + " " + writes);
                long after = micros();
                boolean validAfter = term.isValid();
                if (ok) {
                    accepted++;
                } else {
                    System.out.println("REFUSED " + name + " " + epoch + " " + before + " " + validBefore + " "
                            + validAfter);
                }
                if (validBefore) {
                    first = first < 0 ? before : first;
                    last = Math.max(last, before);
                }
                if (validAfter) {
                    first = first < 0 ? after : first;
                    last = Math.max(last, after);
                }
            }

            void print(String name) {
                System.out.println("TERM " + name + " " + epoch + " " + first + " " + last + " " + writes + " "
                        + accepted);
            }
        }

        synchronized void close() {
            if (closed) {
                return;
            }
            candidacy.close(); // the revocation comes before this returns
            closed = true;
            try {
                loop.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            baton.close();
            System.out.println("CLOSED " + name + " " + recorder.violations());
        }
    }
}
