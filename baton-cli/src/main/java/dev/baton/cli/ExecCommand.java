package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton exec}: not built yet. */
@Command(name = "exec", mixinStandardHelpOptions = true, description = "(being built)")
final class ExecCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "exec is not built yet");
    }
}
