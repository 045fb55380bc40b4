package dev.baton.sale;

import dev.baton.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The stock store on a real redis-server: fenced writes, the lowest stock, purchase records, seeding. */
class StockStoreTest {

    private static RedisServer redis;
    private static LettuceConnectionFactory connections;
    private static StringRedisTemplate template;
    private static StockStore store;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        connections.afterPropertiesSet();
        connections.start();
        template = new StringRedisTemplate(connections);
        store = new StockStore(template);
    }

    @AfterAll
    static void stop() {
        try {
            connections.destroy();
        } finally {
            redis.close();
        }
    }

    @Test
    void refusesAWriteWithATokenOlderThanTheLastAccepted() {
        store.write("fenced", 10, 5, null, true);
        store.write("fenced", 9, 5, null, false); // the same holder may write twice

        assertThatThrownBy(() -> store.write("fenced", 3, 4, null, false))
                .isInstanceOf(StaleFencingTokenException.class)
                .hasMessageContaining("fenced").hasMessageContaining("4");
        assertThat(store.view("fenced")).hasValue(new ItemStock("fenced", 9, 9, 5));

        store.write("fenced", 8, 6, null, false);
        assertThat(store.view("fenced")).hasValue(new ItemStock("fenced", 8, 8, 6));
    }

    @Test
    void comparesTokensOfTheSizeBatonIssuesExactly() {
        // Baton's tokens are the Redis clock in microseconds (about 1.8e15): neighbours must still be told apart.
        long token = 1_795_530_785_621_796L;
        store.write("large", 10, token, null, true);

        assertThatThrownBy(() -> store.write("large", 9, token - 1, null, false))
                .isInstanceOf(StaleFencingTokenException.class);
        store.write("large", 9, token + 1, null, false);
        assertThat(store.view("large")).hasValue(new ItemStock("large", 9, 9, token + 1));
        assertThat(redis.command("PTTL", "sale:{large}:fence")).as("the fence is kept for good").isEqualTo("-1");
    }

    @Test
    void remembersTheLowestStockUntilAnAdministratorSetsIt() {
        store.write("low", 5, 1, null, true);
        store.write("low", 2, 2, null, false);
        store.write("low", 7, 3, null, false);
        assertThat(store.view("low")).hasValue(new ItemStock("low", 7, 2, 3));

        store.write("low", 6, 4, null, true);
        assertThat(store.view("low")).hasValue(new ItemStock("low", 6, 6, 4));
    }

    @Test
    void recordsAPurchaseWithItsWrite() {
        Receipt receipt = new Receipt("order-1", "recorded", "alice", 4, 7);
        store.write("recorded", 4, 7, receipt, false);

        assertThat(redis.command("LRANGE", "sale:{recorded}:purchases", "0", "-1")).isEqualTo("order-1 alice 4 7");
    }

    @Test
    void seedsOnlyWhatIsAbsent() {
        assertThat(store.seed("seeded", 100)).isTrue();
        store.write("seeded", 40, 1, null, false);

        assertThat(store.seed("seeded", 100)).isFalse();
        assertThat(store.stock("seeded")).hasValue(40L);
        assertThat(store.items()).contains("seeded");
        assertThat(store.view("seeded")).hasValue(new ItemStock("seeded", 40, 40, 1));
    }

    @Test
    void knowsNothingOfAnAbsentItem() {
        assertThat(store.stock("absent")).isEmpty();
        assertThat(store.view("absent")).isEmpty();
    }

    @Test
    void rejectsNamesThatAreNotSafeInAKeyAndNegativeStock() {
        assertThatThrownBy(() -> store.stock("a}b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("item ");
        assertThatThrownBy(() -> store.stock("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.write("negative", -1, 1, null, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stock");
    }
}
