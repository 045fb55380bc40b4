package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton limiter}: not built yet. */
@Command(name = "limiter", mixinStandardHelpOptions = true, description = "(being built)")
final class LimiterCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "limiter is not built yet");
    }
}
