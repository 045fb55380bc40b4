package dev.baton.sale;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The "limited stock sale" service: buyers purchase items whose stock is decremented under a Baton lock per item,
 * each buyer is rate limited, and a scheduled restock runs on one instance of the fleet per period.
 *
 * <p>Run it with {@code java -jar baton-sale-demo.jar}: without {@code spring.data.redis.*} settings it starts an
 * embedded redis-server (see {@link EmbeddedRedisInitializer}); with {@code --spring.data.redis.url=redis://...}
 * several instances share one Redis.
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(SaleProperties.class)
public class SaleApplication {

    /**
     * Starts the service.
     *
     * @param args Spring Boot command-line arguments, e.g. {@code --server.port=8081}
     */
    public static void main(String[] args) {
        SpringApplication.run(SaleApplication.class, args);
    }
}
