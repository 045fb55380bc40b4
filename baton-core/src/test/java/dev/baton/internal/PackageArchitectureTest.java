package dev.baton.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of docs/architecture.md, drawn from the imports of baton-core's main sources: the engine knows no
 * family, families know no other family (except the plain lock's typed calls, for the families built on the mutex),
 * internal packages form no cycle, and Lettuce's command types stay in the transport. Fails with the offending
 * {@code class -> import} pairs.
 */
class PackageArchitectureTest {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+);", Pattern.MULTILINE);
    private static final String INTERNAL = "dev.baton.internal.";
    private static final Set<String> FAMILIES = Set.of("lock", "rw", "semaphore", "multi", "redlock", "ratelimit",
            "election", "latch");
    /** The families built on the mutex, which may use the plain lock's typed calls. */
    private static final Set<String> ON_THE_MUTEX = Set.of("multi", "redlock");

    /** Every import of a class in an internal package: "package: Class -> imported". */
    private static final List<Edge> edges = new ArrayList<>();
    /** Every class of baton-core (public API included) and the classes of baton-core it imports. */
    private static final Map<String, Set<String>> classImports = new TreeMap<>();

    private record Edge(String from, String fromClass, String imported) {
        String to() {
            String rest = imported.substring(INTERNAL.length());
            return rest.substring(0, rest.indexOf('.'));
        }

        boolean internal() {
            return imported.startsWith(INTERNAL);
        }

        @Override
        public String toString() {
            return from + "." + fromClass + " -> " + imported;
        }
    }

    @BeforeAll
    static void readImports() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(PackageArchitectureTest::read);
        }
        assertThat(edges).as("imports read from " + SOURCES.toAbsolutePath()).isNotEmpty();
    }

    private static void read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher p = PACKAGE.matcher(text);
        if (!p.find()) {
            return;
        }
        String cls = file.getFileName().toString().replace(".java", "");
        Set<String> imported = classImports.computeIfAbsent(p.group(1) + "." + cls, k -> new TreeSet<>());
        Matcher i = IMPORT.matcher(text);
        while (i.find()) {
            if (i.group(1).startsWith("dev.baton.")) {
                imported.add(i.group(1));
            }
            if (p.group(1).startsWith(INTERNAL)) {
                edges.add(new Edge(p.group(1).substring(INTERNAL.length()), cls, i.group(1)));
            }
        }
    }

    @Test
    void theEngineImportsNoFamilyAndNotThePrimitives() {
        assertThat(edges.stream().filter(e -> e.from().equals("engine") && e.internal()
                && (FAMILIES.contains(e.to()) || e.to().equals("primitives"))))
                .as("arrows from the engine up to a family").isEmpty();
    }

    @Test
    void noFamilyImportsAnotherButThePlainLocksCallsForTheFamiliesOnTheMutex() {
        assertThat(edges.stream().filter(e -> FAMILIES.contains(e.from()) && e.internal()
                && FAMILIES.contains(e.to()) && !e.to().equals(e.from())
                && !(ON_THE_MUTEX.contains(e.from()) && e.imported().equals(INTERNAL + "lock.LockCalls"))))
                .as("arrows between families").isEmpty();
    }

    @Test
    void onlyThePrimitivesImportThePrimitives() {
        assertThat(edges.stream().filter(e -> e.internal() && e.to().equals("primitives")
                && !e.from().equals("primitives"))).as("arrows to the primitives from below").isEmpty();
    }

    @Test
    void theRuntimeAndTheTransportKnowNoLockOrLimiter() {
        assertThat(edges.stream().filter(e -> (e.from().equals("runtime") || e.from().equals("transport"))
                && e.internal() && !e.to().equals("runtime") && !e.to().equals("transport")))
                .as("arrows from runtime or transport up").isEmpty();
        assertThat(edges.stream().filter(e -> e.from().equals("transport") && e.internal()
                && e.to().equals("runtime"))).as("arrows from the transport to the runtime").isEmpty();
    }

    @Test
    void lettucesCommandTypesStayInTheTransport() {
        assertThat(edges.stream().filter(e -> !e.from().equals("transport")
                && (e.imported().equals("io.lettuce.core.ScriptOutputType")
                || e.imported().startsWith("io.lettuce.core.api.")
                || e.imported().startsWith("io.lettuce.core.RedisCommand"))))
                .as("Lettuce command types above the transport").isEmpty();
    }

    @Test
    void internalPackagesFormNoCycle() {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (Edge e : edges) {
            graph.computeIfAbsent(e.from(), k -> new TreeSet<>());
            if (e.internal() && !e.to().equals(e.from())) {
                graph.get(e.from()).add(e.to());
            }
        }
        List<String> cycles = new ArrayList<>();
        for (String start : graph.keySet()) {
            findCycle(graph, start, start, new ArrayList<>(List.of(start)), cycles);
        }
        assertThat(cycles).as("cycles between internal packages").isEmpty();
    }

    @Test
    void noClassesOfDifferentPackagesImportEachOtherInACycle() {
        List<String> cycles = new ArrayList<>();
        for (String start : classImports.keySet()) {
            findCycle(classImports, start, start, new ArrayList<>(List.of(start)), cycles);
        }
        assertThat(cycles).as("import cycles between classes (the public API included)").isEmpty();
    }

    private static void findCycle(Map<String, Set<String>> graph, String start, String at, List<String> path,
                                  List<String> cycles) {
        for (String next : graph.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                cycles.add(String.join(" -> ", path) + " -> " + start);
            } else if (!path.contains(next) && next.compareTo(start) > 0) {
                path.add(next);
                findCycle(graph, start, next, path, cycles);
                path.remove(path.size() - 1);
            }
        }
    }
}
