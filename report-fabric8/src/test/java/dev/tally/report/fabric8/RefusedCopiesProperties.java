package dev.tally.report.fabric8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import dev.tally.report.api.FairShare;
import dev.tally.report.api.testing.WideModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link InformerStores} over streams of what informers and the ledger do to two stores (new
 * versions, the informer's re-list delivering a version again, refusals, versions applied,
 * deletions), with objects of 50 KB each: what is held for refused objects never passes the caps,
 * per namespace or in all, and is their identity alone; the counts are exactly what the stores hold
 * of refused objects (an applied version's copy counts against no cap); an object whose removal the
 * ledger needs keeps its copy past the caps; nothing refused or applied is held whole.
 */
class RefusedCopiesProperties {
  private static final int PER_NAMESPACE = 3;
  private static final int MAX = 5;
  private static final List<String> NAMESPACES = List.of("a", "b", "c");

  /** One step: {@code op} on object {@code name} of store {@code store}. */
  private record Step(Op op, int store, String namespace, String name) {}

  private enum Op {
    NEW_VERSION,
    DELIVERED_AGAIN,
    REFUSED,
    REFUSED_NEEDED,
    APPLIED,
    REMOVED
  }

  private static Gen<List<Step>> streams() {
    return in -> {
      List<Step> steps = new ArrayList<>();
      long n = WideModel.between(in, 1, 300);
      for (int i = 0; i < n; i++) {
        steps.add(
            new Step(
                Op.values()[(int) WideModel.between(in, 0, Op.values().length - 1)],
                (int) WideModel.between(in, 0, 1),
                NAMESPACES.get((int) WideModel.between(in, 0, NAMESPACES.size() - 1)),
                "o" + WideModel.between(in, 0, 5)));
      }
      return steps;
    };
  }

  @Test
  void whatIsHeldOfRefusedObjectsNeverPassesTheCaps() {
    qt().withFixedSeed(19L)
        .withExamples(300)
        .forAll(streams())
        .checkAssert(RefusedCopiesProperties::run);
  }

  private static void run(List<Step> steps) {
    InformerStores copies = new InformerStores(PER_NAMESPACE, MAX);
    List<ItemStore<HasMetadata>> stores = List.of(copies.store(), copies.store());
    // the latest version each store's informer saw of each object (what the cluster holds)
    List<Map<String, HasMetadata>> cluster = List.of(new HashMap<>(), new HashMap<>());
    // the version of each object refused last, and whether the ledger needed its removal
    List<Map<String, String>> refusedAt = List.of(new HashMap<>(), new HashMap<>());
    // the version of each object the ledger applied last, after it was held
    List<Map<String, String>> appliedAt = List.of(new HashMap<>(), new HashMap<>());
    int version = 0;
    int kept = 0;
    for (Step s : steps) {
      ItemStore<HasMetadata> store = stores.get(s.store());
      String key = s.namespace() + "/" + s.name();
      HasMetadata latest = cluster.get(s.store()).get(key);
      switch (s.op()) {
        case NEW_VERSION -> {
          HasMetadata next = object(s.namespace(), s.name(), ++version);
          cluster.get(s.store()).put(key, next);
          store.put(key, next);
        }
        case DELIVERED_AGAIN -> {
          if (latest != null) {
            HasMetadata again = object(s.namespace(), s.name(), version(latest));
            boolean wasHeld = store.get(key) != null;
            store.put(key, again);
            if (!wasHeld
                && again
                    .getMetadata()
                    .getResourceVersion()
                    .equals(refusedAt.get(s.store()).get(key))) {
              // the ledger knows that version refused: it refuses it again, as InputLedger
              // does when the informer delivers it again
              copies.refused(again, false);
            }
          }
        }
        case REFUSED, REFUSED_NEEDED -> {
          if (latest != null) {
            boolean needed = s.op() == Op.REFUSED_NEEDED;
            int inNamespace = copies.heldIn(s.namespace());
            int holding = (int) NAMESPACES.stream().filter(n -> copies.heldIn(n) > 0).count();
            boolean atCap =
                inNamespace >= PER_NAMESPACE
                    || !FairShare.admits(
                        copies.held() + 1L,
                        MAX,
                        inNamespace + 1L,
                        holding + (inNamespace == 0 ? 1 : 0));
            boolean held = store.get(key) != null && !InformerStores.isCopy(store.get(key));
            // the ledger refuses only what it did not apply (a retry after a refusal at a cap)
            boolean applied =
                latest.getMetadata().getResourceVersion().equals(appliedAt.get(s.store()).get(key));
            var over = copies.refused(latest, needed);
            if (needed) {
              assertThat(over).as("a copy the ledger needs is never dropped").isEmpty();
              if (held && atCap) {
                kept++;
              }
            } else {
              assertThat(over.isPresent()).as("dropped at a cap").isEqualTo(held && atCap);
            }
            if (held && !applied) {
              refusedAt.get(s.store()).put(key, latest.getMetadata().getResourceVersion());
            }
          }
        }
        case APPLIED -> {
          if (latest != null && store.get(key) != null) {
            String v = latest.getMetadata().getResourceVersion();
            copies.handled(latest);
            if (v.equals(store.get(key).getMetadata().getResourceVersion())) {
              appliedAt.get(s.store()).put(key, v);
              refusedAt.get(s.store()).remove(key, v); // applied on a retry: no longer refused
            }
          }
        }
        case REMOVED -> {
          cluster.get(s.store()).remove(key);
          store.remove(key);
        }
      }
      check(copies, stores, refusedAt, appliedAt, kept);
    }
  }

  private static void check(
      InformerStores copies,
      List<ItemStore<HasMetadata>> stores,
      List<Map<String, String>> refusedAt,
      List<Map<String, String>> appliedAt,
      int kept) {
    Map<String, Integer> byNamespace = new HashMap<>();
    int total = 0;
    long bytes = 0;
    for (int i = 0; i < stores.size(); i++) {
      for (HasMetadata o : stores.get(i).values().toList()) {
        String key = o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
        String v = o.getMetadata().getResourceVersion();
        if (InformerStores.isCopy(o) && v.equals(appliedAt.get(i).get(key))) {
          assertThat(v)
              .as("%s applied and refused at once", key)
              .isNotEqualTo(refusedAt.get(i).get(key));
          assertThat(InformerStores.bytesOf(o)).isLessThanOrEqualTo(2_048);
        } else if (InformerStores.isCopy(o)) {
          total++;
          bytes += InformerStores.bytesOf(o);
          byNamespace.merge(o.getMetadata().getNamespace(), 1, Integer::sum);
          assertThat(o)
              .as("a copy is the identity alone")
              .isInstanceOfSatisfying(
                  GenericKubernetesResource.class,
                  g -> assertThat(g.getAdditionalProperties()).isEmpty());
          assertThat(InformerStores.bytesOf(o)).isLessThanOrEqualTo(2_048);
        } else {
          assertThat(v)
              .as("%s held whole at a version refused", key)
              .isNotEqualTo(refusedAt.get(i).get(key));
          assertThat(v)
              .as("%s held whole at a version applied", key)
              .isNotEqualTo(appliedAt.get(i).get(key));
        }
      }
    }
    assertThat(copies.held()).as("counted = held").isEqualTo(total);
    assertThat(copies.heldBytes()).isEqualTo(bytes);
    for (String ns : NAMESPACES) {
      assertThat(copies.heldIn(ns)).isEqualTo(byNamespace.getOrDefault(ns, 0));
      assertThat(copies.heldIn(ns)).isLessThanOrEqualTo(PER_NAMESPACE + kept);
    }
    assertThat((long) total).isLessThanOrEqualTo(FairShare.ceiling(MAX) + kept);
  }

  private static int version(HasMetadata o) {
    return Integer.parseInt(o.getMetadata().getResourceVersion());
  }

  /** An object of about 50 KB, at {@code version}. */
  private static HasMetadata object(String namespace, String name, int version) {
    var o = new GenericKubernetesResource();
    o.setApiVersion("reports.kyverno.io/v1");
    o.setKind("EphemeralReport");
    o.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withUid("uid-" + namespace + "-" + name)
            .withResourceVersion(Integer.toString(version))
            .build());
    o.setAdditionalProperty("spec", Map.of("payload", "x".repeat(50_000)));
    return o;
  }
}
