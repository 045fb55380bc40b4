package dev.baton.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Redis commands per operation inside a JMH trial. Every benchmark method counts its operations here; before each
 * iteration the server's command statistics are reset, after each measurement iteration they are read and added
 * up. Operations and commands are counted over exactly the same span (JMH's own set-up and tear-down of the
 * iteration excluded on both sides, its warm-down between threads included on both), so their ratio is exact
 * even though the span is a little longer than the timed window. At the end of the trial one line goes to the
 * stats file that {@link BenchMain} reads back.
 */
@State(Scope.Benchmark)
public class CommandAccounting {
    /**
     * Completed operations (lock+unlock, or one tryLock attempt plus the unlock when it succeeded, or one rate-limiter
     * decision).
     */
    public final LongAdder ops = new LongAdder();
    /** tryLock attempts that acquired (scenario d), or rate-limiter decisions that granted (r1, r2); 0 elsewhere. */
    public final LongAdder acquired = new LongAdder();

    private RedisAdmin admin;
    private long measuredOps;
    private long measuredAcquired;
    private CommandStats measured = CommandStats.empty();

    @Setup(Level.Trial)
    public void connect() {
        admin = RedisAdmin.connect(BenchEnv.redisUri());
    }

    @Setup(Level.Iteration)
    public void reset() {
        ops.reset();
        acquired.reset();
        admin.resetStats();
    }

    @TearDown(Level.Iteration)
    public void collect(IterationParams iteration) {
        if (iteration.getType() != IterationType.MEASUREMENT) {
            return;
        }
        CommandStats stats = admin.commandStats();
        measuredOps += ops.sum();
        measuredAcquired += acquired.sum();
        measured = measured.plus(stats);
    }

    @TearDown(Level.Trial)
    public void report(BenchmarkParams params) {
        try {
            String file = BenchEnv.statsFile();
            if (file != null) {
                String line = String.join("\t", params.getBenchmark(), String.valueOf(params.getParam("contender")),
                        params.getMode().shortLabel(), Long.toString(measuredOps), Long.toString(measuredAcquired),
                        measured.encode()) + "\n";
                Files.writeString(Path.of(file), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            admin.close();
        }
    }
}
