package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton elect}: not built yet. */
@Command(name = "elect", mixinStandardHelpOptions = true, description = "(being built)")
final class ElectCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "elect is not built yet");
    }
}
