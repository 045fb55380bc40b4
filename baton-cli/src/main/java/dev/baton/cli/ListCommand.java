package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton list}: not built yet. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "(being built)")
final class ListCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "list is not built yet");
    }
}
