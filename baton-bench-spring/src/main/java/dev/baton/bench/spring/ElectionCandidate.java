package dev.baton.bench.spring;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.Candidacy;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One candidate of {@link ElectionBench}, alone in its JVM so that the bench can kill it ({@code kill -9}) and pause it
 * ({@code SIGSTOP}) as a real process: a Baton candidacy ({@code baton}) or Spring Integration's
 * {@link LockRegistryLeaderInitiator} over a {@link RedisLockRegistry} of its own ({@code spring-spin},
 * {@code spring-pubsub}: the registry's two lock types).
 *
 * <p>It tells the bench on stdout, one line each, stamped with {@link System#nanoTime()} (on Linux the system-wide
 * monotonic clock, which the bench's JVM reads too): {@code READY t}, {@code ELECTED t epoch} and
 * {@code REVOKED t reason} (its listener's calls; epoch -1 for Spring). On {@code WRITE} from stdin it starts a writer
 * that checks every few milliseconds whether this candidate believes it leads (Baton: {@link Candidacy#isLeader()},
 * Spring: {@link Context#isLeader()}) and, if so, writes to the {@link EpochResource} with its epoch (none for
 * Spring); when that belief ends it prints {@code FOLLOWS t last}: the first check that found it over and the last
 * that found it leading.
 *
 * <p>Arguments: {@code --kind K --uri redis://host:port --election NAME --lease-ms L --id N --resource-port P}, for
 * Baton {@code --recheck-ms R}, for Spring {@code --heartbeat-ms H --busy-wait-ms B --idle-between-tries-ms I}.
 */
final class ElectionCandidate {
    private static final Duration WRITE_EVERY = Duration.ofMillis(5);

    private ElectionCandidate() {
    }

    /** What the writer asks of either kind, in one read, so that a write never pairs one term's belief with none. */
    interface Belief {
        /** Empty unless this candidate believes it leads now (no Redis call); then its epoch, or -1 for none. */
        OptionalLong leadership();
    }

    /**
     * Runs one candidate until the bench kills it or closes its stdin.
     *
     * @param args the options above
     * @throws Exception if the candidate cannot start
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].substring(2), args[i + 1]);
        }
        String kind = options.get("kind");
        Duration lease = Duration.ofMillis(Long.parseLong(options.get("lease-ms")));
        Belief belief = switch (kind) {
            case ElectionBench.BATON -> baton(options, lease);
            case ElectionBench.SPRING_SPIN, ElectionBench.SPRING_PUBSUB -> spring(options, kind, lease);
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        };
        say("READY " + System.nanoTime());
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null) {
            if (line.equals("WRITE")) {
                startWriter(belief, Integer.parseInt(options.get("id")),
                        Integer.parseInt(options.get("resource-port")));
            }
        }
        System.exit(0); // the bench is gone: so is this candidate
    }

    private static Belief baton(Map<String, String> options, Duration lease) {
        Baton baton = Baton.connect(BatonConfig.builder().uri(options.get("uri")).watchdogLease(lease)
                .recheckInterval(Duration.ofMillis(Long.parseLong(options.get("recheck-ms")))).build());
        Candidacy candidacy = baton.election(options.get("election")).join(new LeadershipListener() {
            @Override
            public void elected(Leadership leadership) {
                say("ELECTED " + System.nanoTime() + " " + leadership.epoch());
            }

            @Override
            public void revoked(Leadership leadership, RevocationReason reason) {
                say("REVOKED " + System.nanoTime() + " " + reason);
            }
        });
        return () -> candidacy.leadership().filter(Leadership::isValid)
                .map(l -> OptionalLong.of(l.epoch())).orElse(OptionalLong.empty());
    }

    private static Belief spring(Map<String, String> options, String kind, Duration lease) {
        URI uri = URI.create(options.get("uri"));
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
        RedisLockRegistry registry = new RedisLockRegistry(connections, "election-bench", lease);
        registry.setRedisLockType(kind.equals(ElectionBench.SPRING_PUBSUB)
                ? RedisLockRegistry.RedisLockType.PUB_SUB_LOCK : RedisLockRegistry.RedisLockType.SPIN_LOCK);
        registry.setIdleBetweenTries(Duration.ofMillis(Long.parseLong(options.get("idle-between-tries-ms"))));
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
                new DefaultCandidate("candidate-" + options.get("id"), options.get("election")) {
                    @Override
                    public void onGranted(Context context) {
                        say("ELECTED " + System.nanoTime() + " -1");
                    }

                    @Override
                    public void onRevoked(Context context) {
                        say("REVOKED " + System.nanoTime() + " -");
                    }
                });
        initiator.setHeartBeatMillis(Long.parseLong(options.get("heartbeat-ms")));
        initiator.setBusyWaitMillis(Long.parseLong(options.get("busy-wait-ms")));
        initiator.setApplicationEventPublisher(event -> {
            // no Spring context: the candidate's callbacks above are what the bench listens to
        });
        initiator.start();
        return () -> initiator.getContext().isLeader() ? OptionalLong.of(-1) : OptionalLong.empty();
    }

    private static void startWriter(Belief belief, int id, int port) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.US_ASCII));
        Thread writer = new Thread(() -> {
            long lastLeading = -1;
            try {
                while (true) {
                    long now = System.nanoTime();
                    OptionalLong leadership = belief.leadership();
                    if (leadership.isPresent()) {
                        lastLeading = now;
                        long epoch = leadership.getAsLong();
                        out.write(("W " + id + " " + (epoch < 0 ? "-" : Long.toString(epoch)) + "\n")
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        in.readLine(); // OK or REFUSED: the resource keeps the record
                    } else if (lastLeading >= 0) {
                        say("FOLLOWS " + now + " " + lastLeading);
                        lastLeading = -1;
                    }
                    Thread.sleep(WRITE_EVERY.toMillis()); // the writer's pace
                }
            } catch (IOException | InterruptedException e) {
                say("WRITER-ENDED " + e);
            }
        }, "writer");
        writer.setDaemon(true);
        writer.start();
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
