package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton watch}: not built yet. */
@Command(name = "watch", mixinStandardHelpOptions = true, description = "(being built)")
final class WatchCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "watch is not built yet");
    }
}
