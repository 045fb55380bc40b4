package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public API's pages pass javadoc's doclint, all groups, without a single warning, in every build. javac's doclint
 * (in the compiler configuration) checks the same groups at each compilation, but not the serialized form, which
 * javadoc documents too: the private fields of a serializable exception. Those went unnoticed until a release build
 * ran javadoc, so javadoc itself runs here, the way the release profile runs it (the module {@code dev.baton} on the
 * module path), in a few seconds.
 */
class ApiDocumentationTest {
    /** The libraries the module reads; other jars of the test class path would only be extra automatic modules. */
    private static final List<String> MODULE_PATH_JARS = List.of("lettuce", "netty", "reactor", "slf4j",
            "reactive-streams");

    @Test
    void javadocFindsNothingToWarnAbout(@TempDir Path pages) {
        Path sources = Path.of("src", "main", "java");
        assertThat(sources.resolve("module-info.java")).as("run from the module's directory").exists();
        String modulePath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.endsWith(".jar") && MODULE_PATH_JARS.stream()
                        .anyMatch(name -> Path.of(entry).getFileName().toString().startsWith(name)))
                .collect(Collectors.joining(File.pathSeparator));
        // java.util.spi.ToolProvider, not javax.tools: the tests run inside the module, which reads only java.base
        // of the JDK.
        ToolProvider javadoc = ToolProvider.findFirst("javadoc").orElseThrow();
        StringWriter output = new StringWriter();
        int exit;
        try (PrintWriter writer = new PrintWriter(output)) {
            exit = javadoc.run(writer, writer, "-quiet", "-Xdoclint:all", "-Werror", "-d", pages.toString(),
                    "--module-path", modulePath, "--module-source-path", "dev.baton=" + sources, "--module",
                    "dev.baton");
        }

        assertThat(output.toString()).as("javadoc's diagnostics").doesNotContain("warning").doesNotContain("error");
        assertThat(exit).as(output.toString()).isZero();
        assertThat(Files.exists(pages.resolve("dev.baton").resolve("dev").resolve("baton")
                .resolve("ReplicaAcknowledgementException.html"))).as("the pages were written").isTrue();
    }
}
