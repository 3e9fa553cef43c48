// The C interface Collidoscope's Jolt adapter (src/peer/jolt/) calls: a Jolt PhysicsSystem
// stepped on the calling thread, with the calls JoltC (joltc-sys 0.3.1) lacks: gravity and
// PhysicsSettings, mesh shapes, body mass properties, contact figures, and constraints (joints)
// with a group filter that keeps jointed bodies from colliding. Compiled by build.rs
// against the Jolt headers joltc-sys bundles, with the defines Jolt's own build used.
//
// Every function that can fail writes a message into `err` (NUL-terminated, at most `err_len`
// bytes) and returns null or false; nothing here throws or aborts on bad input.

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Core/JobSystemThreadPool.h>
#include <Jolt/Core/TempAllocator.h>
#include <Jolt/Physics/Body/BodyCreationSettings.h>
#include <Jolt/Physics/Collision/ContactListener.h>
#include <Jolt/Physics/Collision/GroupFilter.h>
#include <Jolt/Physics/Collision/Shape/BoxShape.h>
#include <Jolt/Physics/Collision/Shape/CapsuleShape.h>
#include <Jolt/Physics/Collision/Shape/ConvexHullShape.h>
#include <Jolt/Physics/Collision/Shape/MeshShape.h>
#include <Jolt/Physics/Collision/Shape/SphereShape.h>
#include <Jolt/Physics/Collision/Shape/StaticCompoundShape.h>
#include <Jolt/Physics/Constraints/DistanceConstraint.h>
#include <Jolt/Physics/Constraints/FixedConstraint.h>
#include <Jolt/Physics/Constraints/HingeConstraint.h>
#include <Jolt/Physics/Constraints/PointConstraint.h>
#include <Jolt/Physics/Constraints/SliderConstraint.h>
#include <Jolt/Physics/Constraints/SwingTwistConstraint.h>
#include <Jolt/Physics/PhysicsSettings.h>
#include <Jolt/Physics/PhysicsSystem.h>
#include <Jolt/RegisterTypes.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

using namespace JPH;

namespace {

void trace(const char *, ...) {}

#ifdef JPH_ENABLE_ASSERTS
bool assert_failed(const char *expr, const char *msg, const char *file, uint line) {
    std::fprintf(stderr, "Jolt assertion %s (%s) at %s:%u\n", expr, msg ? msg : "", file, line);
    return true;
}
#endif

void init_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        RegisterDefaultAllocator();
        Trace = trace;
        JPH_IF_ENABLE_ASSERTS(AssertFailed = assert_failed;)
        Factory::sInstance = new Factory();
        RegisterTypes();
    });
}

void set_err(char *err, size_t len, const char *msg) {
    if (err != nullptr && len > 0) {
        std::snprintf(err, len, "%s", msg);
    }
}

// Two object layers: static bodies never test against each other.
constexpr ObjectLayer NON_MOVING = 0;
constexpr ObjectLayer MOVING = 1;

class BpLayers final : public BroadPhaseLayerInterface {
public:
    uint GetNumBroadPhaseLayers() const override { return 2; }
    BroadPhaseLayer GetBroadPhaseLayer(ObjectLayer layer) const override { return BroadPhaseLayer(layer == NON_MOVING ? 0 : 1); }
#if defined(JPH_EXTERNAL_PROFILE) || defined(JPH_PROFILE_ENABLED)
    const char *GetBroadPhaseLayerName(BroadPhaseLayer layer) const override {
        return layer.GetValue() == 0 ? "NON_MOVING" : "MOVING";
    }
#endif
};

class ObjVsBp final : public ObjectVsBroadPhaseLayerFilter {
public:
    bool ShouldCollide(ObjectLayer layer, BroadPhaseLayer bp) const override {
        return layer == MOVING || bp.GetValue() == 1;
    }
};

class ObjPairs final : public ObjectLayerPairFilter {
public:
    bool ShouldCollide(ObjectLayer a, ObjectLayer b) const override { return a == MOVING || b == MOVING; }
};

// The deepest penetration and the manifold and point counts of the contacts of one step.
class Contacts final : public ContactListener {
public:
    void reset() {
        deepest.store(0.0f);
        manifolds.store(0);
        points.store(0);
    }
    void OnContactAdded(const Body &, const Body &, const ContactManifold &m, ContactSettings &) override { take(m); }
    void OnContactPersisted(const Body &, const Body &, const ContactManifold &m, ContactSettings &) override { take(m); }

    std::atomic<float> deepest{0.0f};
    std::atomic<uint32> manifolds{0};
    std::atomic<uint32> points{0};

private:
    void take(const ContactManifold &m) {
        manifolds.fetch_add(1);
        points.fetch_add(uint32(m.mRelativeContactPointsOn1.size()));
        float d = m.mPenetrationDepth;
        float cur = deepest.load();
        while (d > cur && !deepest.compare_exchange_weak(cur, d)) {
        }
    }
};

// The pairs of jointed bodies that do not collide. A body in such a pair carries this filter
// with its index as the sub-group; two bodies collide unless both do and their pair is listed.
class NoCollidePairs final : public GroupFilter {
public:
    static uint64 key(uint32 a, uint32 b) { return (uint64(std::min(a, b)) << 32) | uint64(std::max(a, b)); }
    bool CanCollide(const CollisionGroup &g1, const CollisionGroup &g2) const override {
        uint32 a = g1.GetSubGroupID(), b = g2.GetSubGroupID();
        if (a == CollisionGroup::cInvalidSubGroup || b == CollisionGroup::cInvalidSubGroup) {
            return true;
        }
        return pairs.find(key(a, b)) == pairs.end();
    }
    std::unordered_set<uint64> pairs;
};

}  // namespace

struct JsWorld {
    BpLayers bp_layers;
    ObjVsBp obj_vs_bp;
    ObjPairs obj_pairs;
    Contacts contacts;
    // Sized for the world's contact constraints (js_world_new).
    std::unique_ptr<TempAllocatorImpl> temp;
    // No worker threads: every job runs on the thread that calls Update.
    JobSystemThreadPool jobs{cMaxPhysicsJobs, cMaxPhysicsBarriers, 0};
    PhysicsSystem system;
    std::vector<BodyID> ids;
    // The joints in scene order (null where the scene's joint had broken before the copy).
    std::vector<Ref<TwoBodyConstraint>> joints;
    Ref<NoCollidePairs> no_collide = new NoCollidePairs();
};

extern "C" {

struct JsSettings {
    float gravity[3];
    uint32_t collision_steps;
    uint32_t velocity_steps;
    uint32_t position_steps;
    float baumgarte;
    float speculative_distance;
    float penetration_slop;
    float min_velocity_for_restitution;
    float body_pair_cache_distance;
    float time_before_sleep;
    float point_velocity_sleep_threshold;
    bool allow_sleeping;
    bool warm_start;
};

struct JsBodyDesc {
    float position[3];
    float rotation[4];  // x, y, z, w
    float linvel[3];
    float angvel[3];
    uint32_t kind;  // 0 static, 1 dynamic, 2 kinematic
    float friction;
    float restitution;
    float linear_damping;
    float angular_damping;
    float max_linear_velocity;
    float max_angular_velocity;
    bool allow_sleeping;
    bool linear_cast;
    bool asleep;
};

struct JsBodyState {
    float position[3];
    float rotation[4];
    float linvel[3];
    float angvel[3];
    bool active;
};

// One joint, in each body's frame relative to its centre of mass (the world's frame for the
// world side, index -1). The mapping from Collidoscope's kinds is done by the caller
// (src/peer/jolt/joints.rs); this only builds what it is given.
struct JsJointDesc {
    int32_t a;
    int32_t b;
    uint32_t kind;  // 0 fixed, 1 point, 2 swing-twist, 3 hinge, 4 slider, 5 distance
    float point_a[3];
    float point_b[3];
    // Each side's frame: its x axis (the hinge's, slider's or twist axis) and its y axis (the
    // normal that marks the zero angle).
    float axis_a[3];
    float normal_a[3];
    float axis_b[3];
    float normal_b[3];
    // Hinge angle, slider offset or twist (rad or m), in Jolt's ranges; distance min and max.
    bool has_limits;
    float limit_min;
    float limit_max;
    float cone;  // swing-twist: the cone's half-angle, rad
    bool has_motor;
    float motor_speed;
    float motor_max;  // N m (hinge) or N (slider)
    // Distance: a spring (stiffness N/m, damping N s/m) on the limits when stiffness > 0.
    float stiffness;
    float damping;
    bool collide;
};

struct JsStepStats {
    double update_ms;
    float deepest_penetration;
    uint32_t manifolds;
    uint32_t points;
    uint32_t active_bodies;
    uint32_t error;
};

// Shapes: each returns a new reference the caller releases with js_shape_release (also after
// passing it to a body or a compound, which take their own reference).

static const Shape *finish(ShapeSettings::ShapeResult r, char *err, size_t err_len) {
    if (r.HasError()) {
        set_err(err, err_len, r.GetError().c_str());
        return nullptr;
    }
    const Shape *s = r.Get().GetPtr();
    s->AddRef();
    return s;
}

const Shape *js_shape_sphere(float radius, float density, char *err, size_t err_len) {
    init_once();
    SphereShapeSettings s(radius);
    s.SetDensity(density);
    return finish(s.Create(), err, err_len);
}

const Shape *js_shape_box(const float half[3], float convex_radius, float density, char *err, size_t err_len) {
    init_once();
    BoxShapeSettings s(Vec3(half[0], half[1], half[2]), convex_radius);
    s.SetDensity(density);
    return finish(s.Create(), err, err_len);
}

const Shape *js_shape_capsule(float half_height, float radius, float density, char *err, size_t err_len) {
    init_once();
    CapsuleShapeSettings s(half_height, radius);
    s.SetDensity(density);
    return finish(s.Create(), err, err_len);
}

const Shape *js_shape_hull(const float *points, uint32_t n, float max_convex_radius, float density, char *err,
                           size_t err_len) {
    init_once();
    Array<Vec3> pts;
    pts.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        pts.push_back(Vec3(points[3 * i], points[3 * i + 1], points[3 * i + 2]));
    }
    ConvexHullShapeSettings s(pts, max_convex_radius);
    s.SetDensity(density);
    return finish(s.Create(), err, err_len);
}

const Shape *js_shape_mesh(const float *vertices, uint32_t nv, const uint32_t *indices, uint32_t ntri, char *err,
                           size_t err_len) {
    init_once();
    VertexList verts;
    verts.reserve(nv);
    for (uint32_t i = 0; i < nv; ++i) {
        verts.push_back(Float3(vertices[3 * i], vertices[3 * i + 1], vertices[3 * i + 2]));
    }
    IndexedTriangleList tris;
    tris.reserve(ntri);
    for (uint32_t t = 0; t < ntri; ++t) {
        tris.push_back(IndexedTriangle(indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]));
    }
    MeshShapeSettings s(std::move(verts), std::move(tris));
    return finish(s.Create(), err, err_len);
}

// `poses` holds 7 floats a child: translation, then rotation x, y, z, w.
const Shape *js_shape_compound(const Shape *const *children, const float *poses, uint32_t n, char *err,
                               size_t err_len) {
    init_once();
    StaticCompoundShapeSettings s;
    for (uint32_t i = 0; i < n; ++i) {
        const float *p = poses + 7 * i;
        s.AddShape(Vec3(p[0], p[1], p[2]), Quat(p[3], p[4], p[5], p[6]), children[i]);
    }
    return finish(s.Create(), err, err_len);
}

void js_shape_release(const Shape *s) {
    if (s != nullptr) {
        s->Release();
    }
}

JsWorld *js_world_new(uint32_t max_bodies) {
    init_once();
    JsWorld *w = new JsWorld();
    uint32_t bodies = std::max<uint32_t>(max_bodies, 1);
    // Room for eight touching pairs a body; Jolt's step takes its contact constraints from the
    // temporary allocator, so that is sized to match.
    uint32_t pairs = std::max<uint32_t>(4096, bodies * 8);
    w->temp = std::make_unique<TempAllocatorImpl>(16 * 1024 * 1024 + pairs * 1024);
    w->system.Init(bodies, 0, pairs, pairs, w->bp_layers, w->obj_vs_bp, w->obj_pairs);
    w->system.SetContactListener(&w->contacts);
    w->ids.reserve(bodies);
    return w;
}

void js_world_free(JsWorld *w) {
    if (w == nullptr) {
        return;
    }
    for (Ref<TwoBodyConstraint> &c : w->joints) {
        if (c != nullptr) {
            w->system.RemoveConstraint(c);
        }
    }
    w->joints.clear();
    BodyInterface &bi = w->system.GetBodyInterface();
    for (BodyID id : w->ids) {
        bi.RemoveBody(id);
        bi.DestroyBody(id);
    }
    delete w;
}

void js_set_settings(JsWorld *w, const JsSettings *s) {
    PhysicsSettings p = w->system.GetPhysicsSettings();
    p.mNumVelocitySteps = s->velocity_steps;
    p.mNumPositionSteps = s->position_steps;
    p.mBaumgarte = s->baumgarte;
    p.mSpeculativeContactDistance = s->speculative_distance;
    p.mPenetrationSlop = s->penetration_slop;
    p.mMinVelocityForRestitution = s->min_velocity_for_restitution;
    p.mBodyPairCacheMaxDeltaPositionSq = s->body_pair_cache_distance * s->body_pair_cache_distance;
    p.mUseBodyPairContactCache = s->body_pair_cache_distance > 0.0f;
    p.mTimeBeforeSleep = s->time_before_sleep;
    p.mPointVelocitySleepThreshold = s->point_velocity_sleep_threshold;
    p.mAllowSleeping = s->allow_sleeping;
    p.mConstraintWarmStart = s->warm_start;
    w->system.SetPhysicsSettings(p);
    w->system.SetGravity(Vec3(s->gravity[0], s->gravity[1], s->gravity[2]));
}

// Adds a body in scene order; returns false (with `err`) if Jolt is out of bodies.
bool js_add_body(JsWorld *w, const Shape *shape, const JsBodyDesc *d, char *err, size_t err_len) {
    static const EMotionType kinds[3] = {EMotionType::Static, EMotionType::Dynamic, EMotionType::Kinematic};
    if (d->kind > 2) {
        set_err(err, err_len, "unknown body kind");
        return false;
    }
    EMotionType kind = kinds[d->kind];
    BodyCreationSettings bcs(shape, RVec3(d->position[0], d->position[1], d->position[2]),
                             Quat(d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]).Normalized(), kind,
                             kind == EMotionType::Static ? NON_MOVING : MOVING);
    bcs.mLinearVelocity = Vec3(d->linvel[0], d->linvel[1], d->linvel[2]);
    bcs.mAngularVelocity = Vec3(d->angvel[0], d->angvel[1], d->angvel[2]);
    bcs.mFriction = d->friction;
    bcs.mRestitution = d->restitution;
    bcs.mLinearDamping = d->linear_damping;
    bcs.mAngularDamping = d->angular_damping;
    bcs.mMaxLinearVelocity = d->max_linear_velocity;
    bcs.mMaxAngularVelocity = d->max_angular_velocity;
    bcs.mAllowSleeping = d->allow_sleeping;
    bcs.mMotionQuality = d->linear_cast ? EMotionQuality::LinearCast : EMotionQuality::Discrete;
    bcs.mApplyGyroscopicForce = false;
    BodyInterface &bi = w->system.GetBodyInterface();
    Body *body = bi.CreateBody(bcs);
    if (body == nullptr) {
        set_err(err, err_len, "Jolt has no room for another body");
        return false;
    }
    bool active = kind != EMotionType::Static && !d->asleep;
    bi.AddBody(body->GetID(), active ? EActivation::Activate : EActivation::DontActivate);
    w->ids.push_back(body->GetID());
    return true;
}

// Per-body settings that follow the world's: sleeping, motion quality, friction and restitution
// (the world-wide overrides).
void js_body_configure(JsWorld *w, uint32_t i, bool allow_sleeping, bool linear_cast, float friction,
                       float restitution) {
    BodyID id = w->ids[i];
    bool moving = false;
    {
        BodyLockWrite lock(w->system.GetBodyLockInterface(), id);
        if (lock.Succeeded()) {
            Body &b = lock.GetBody();
            b.SetFriction(friction);
            b.SetRestitution(restitution);
            // A static body has no motion properties: no sleep flag, no motion quality.
            moving = !b.IsStatic();
            if (moving) {
                b.SetAllowSleeping(allow_sleeping);
            }
        }
    }
    if (moving) {
        w->system.GetBodyInterface().SetMotionQuality(
            id, linear_cast ? EMotionQuality::LinearCast : EMotionQuality::Discrete);
    }
}

void js_wake_all(JsWorld *w) {
    BodyInterface &bi = w->system.GetBodyInterface();
    for (BodyID id : w->ids) {
        if (bi.GetMotionType(id) != EMotionType::Static) {
            bi.ActivateBody(id);
        }
    }
}

void js_optimize_broad_phase(JsWorld *w) { w->system.OptimizeBroadPhase(); }

void js_step(JsWorld *w, float dt, uint32_t collision_steps, JsStepStats *out) {
    w->contacts.reset();
    auto t0 = std::chrono::steady_clock::now();
    EPhysicsUpdateError e = w->system.Update(dt, int(std::max<uint32_t>(collision_steps, 1)), w->temp.get(), &w->jobs);
    auto t1 = std::chrono::steady_clock::now();
    out->update_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    out->deepest_penetration = w->contacts.deepest.load();
    out->manifolds = w->contacts.manifolds.load();
    out->points = w->contacts.points.load();
    out->active_bodies = w->system.GetNumActiveBodies(EBodyType::RigidBody);
    out->error = uint32_t(e);
}

void js_read(const JsWorld *w, JsBodyState *out) {
    const BodyLockInterfaceNoLock &locks = w->system.GetBodyLockInterfaceNoLock();
    for (size_t i = 0; i < w->ids.size(); ++i) {
        BodyLockRead lock(locks, w->ids[i]);
        const Body &b = lock.GetBody();
        RVec3 p = b.GetPosition();
        Quat q = b.GetRotation();
        Vec3 v = b.GetLinearVelocity();
        Vec3 a = b.GetAngularVelocity();
        JsBodyState &s = out[i];
        s.position[0] = float(p.GetX());
        s.position[1] = float(p.GetY());
        s.position[2] = float(p.GetZ());
        s.rotation[0] = q.GetX();
        s.rotation[1] = q.GetY();
        s.rotation[2] = q.GetZ();
        s.rotation[3] = q.GetW();
        s.linvel[0] = v.GetX();
        s.linvel[1] = v.GetY();
        s.linvel[2] = v.GetZ();
        s.angvel[0] = a.GetX();
        s.angvel[1] = a.GetY();
        s.angvel[2] = a.GetZ();
        s.active = b.IsActive();
    }
}

static Vec3 v3(const float v[3]) { return Vec3(v[0], v[1], v[2]); }

// Adds a joint in scene order (`d` null: a placeholder for a joint that had broken); false
// (with `err`) for a body index out of range or an unknown kind.
bool js_add_joint(JsWorld *w, const JsJointDesc *d, char *err, size_t err_len) {
    if (d == nullptr) {
        w->joints.push_back(nullptr);
        return true;
    }
    const BodyLockInterfaceNoLock &locks = w->system.GetBodyLockInterfaceNoLock();
    auto side = [&](int32_t i) -> Body * {
        if (i < 0) {
            return &Body::sFixedToWorld;
        }
        return size_t(i) < w->ids.size() ? locks.TryGetBody(w->ids[size_t(i)]) : nullptr;
    };
    Body *a = side(d->a);
    Body *b = side(d->b);
    if (a == nullptr || b == nullptr) {
        set_err(err, err_len, "a joint names a body Jolt does not have");
        return false;
    }
    auto motor = [&](MotorSettings &m, bool angular) {
        if (angular) {
            m.SetTorqueLimit(d->motor_max);
        } else {
            m.SetForceLimit(d->motor_max);
        }
    };
    Ref<TwoBodyConstraint> c;
    switch (d->kind) {
        case 0: {
            FixedConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPoint1 = RVec3(v3(d->point_a));
            s.mAxisX1 = v3(d->axis_a);
            s.mAxisY1 = v3(d->normal_a);
            s.mPoint2 = RVec3(v3(d->point_b));
            s.mAxisX2 = v3(d->axis_b);
            s.mAxisY2 = v3(d->normal_b);
            c = s.Create(*a, *b);
            break;
        }
        case 1: {
            PointConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPoint1 = RVec3(v3(d->point_a));
            s.mPoint2 = RVec3(v3(d->point_b));
            c = s.Create(*a, *b);
            break;
        }
        case 2: {
            SwingTwistConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPosition1 = RVec3(v3(d->point_a));
            s.mTwistAxis1 = v3(d->axis_a);
            s.mPlaneAxis1 = v3(d->normal_a);
            s.mPosition2 = RVec3(v3(d->point_b));
            s.mTwistAxis2 = v3(d->axis_b);
            s.mPlaneAxis2 = v3(d->normal_b);
            s.mSwingType = ESwingType::Cone;
            s.mNormalHalfConeAngle = d->cone;
            s.mPlaneHalfConeAngle = d->cone;
            s.mTwistMinAngle = d->has_limits ? d->limit_min : -JPH_PI;
            s.mTwistMaxAngle = d->has_limits ? d->limit_max : JPH_PI;
            c = s.Create(*a, *b);
            break;
        }
        case 3: {
            HingeConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPoint1 = RVec3(v3(d->point_a));
            s.mHingeAxis1 = v3(d->axis_a);
            s.mNormalAxis1 = v3(d->normal_a);
            s.mPoint2 = RVec3(v3(d->point_b));
            s.mHingeAxis2 = v3(d->axis_b);
            s.mNormalAxis2 = v3(d->normal_b);
            if (d->has_limits) {
                s.mLimitsMin = d->limit_min;
                s.mLimitsMax = d->limit_max;
            }
            motor(s.mMotorSettings, true);
            Ref<HingeConstraint> h = static_cast<HingeConstraint *>(s.Create(*a, *b));
            if (d->has_motor) {
                h->SetMotorState(EMotorState::Velocity);
                h->SetTargetAngularVelocity(d->motor_speed);
            }
            c = h;
            break;
        }
        case 4: {
            SliderConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPoint1 = RVec3(v3(d->point_a));
            s.mSliderAxis1 = v3(d->axis_a);
            s.mNormalAxis1 = v3(d->normal_a);
            s.mPoint2 = RVec3(v3(d->point_b));
            s.mSliderAxis2 = v3(d->axis_b);
            s.mNormalAxis2 = v3(d->normal_b);
            if (d->has_limits) {
                s.mLimitsMin = d->limit_min;
                s.mLimitsMax = d->limit_max;
            }
            motor(s.mMotorSettings, false);
            Ref<SliderConstraint> sl = static_cast<SliderConstraint *>(s.Create(*a, *b));
            if (d->has_motor) {
                sl->SetMotorState(EMotorState::Velocity);
                sl->SetTargetVelocity(d->motor_speed);
            }
            c = sl;
            break;
        }
        case 5: {
            DistanceConstraintSettings s;
            s.mSpace = EConstraintSpace::LocalToBodyCOM;
            s.mPoint1 = RVec3(v3(d->point_a));
            s.mPoint2 = RVec3(v3(d->point_b));
            s.mMinDistance = d->limit_min;
            s.mMaxDistance = d->limit_max;
            if (d->stiffness > 0.0f) {
                s.mLimitsSpringSettings = SpringSettings(ESpringMode::StiffnessAndDamping, d->stiffness, d->damping);
            }
            c = s.Create(*a, *b);
            break;
        }
        default:
            set_err(err, err_len, "unknown joint kind");
            return false;
    }
    w->system.AddConstraint(c);
    w->joints.push_back(c);
    if (!d->collide && d->a >= 0 && d->b >= 0) {
        w->no_collide->pairs.insert(NoCollidePairs::key(uint32(d->a), uint32(d->b)));
        for (int32_t i : {d->a, d->b}) {
            side(i)->SetCollisionGroup(CollisionGroup(w->no_collide, 0, uint32(i)));
        }
    }
    return true;
}

// Joint `k`'s impulse in the last step, N s, as Collidoscope's break force reads its own: the
// linear impulse that holds the anchors plus the size of the limit's and the motor's impulse on
// the joint's coordinate. -1 for a joint that does not act (broken).
float js_joint_impulse(const JsWorld *w, uint32_t k) {
    const TwoBodyConstraint *c = w->joints[k];
    if (c == nullptr || !c->GetEnabled()) {
        return -1.0f;
    }
    switch (c->GetSubType()) {
        case EConstraintSubType::Fixed:
            return static_cast<const FixedConstraint *>(c)->GetTotalLambdaPosition().Length();
        case EConstraintSubType::Point:
            return static_cast<const PointConstraint *>(c)->GetTotalLambdaPosition().Length();
        case EConstraintSubType::SwingTwist: {
            const SwingTwistConstraint *s = static_cast<const SwingTwistConstraint *>(c);
            return s->GetTotalLambdaPosition().Length() + std::abs(s->GetTotalLambdaTwist());
        }
        case EConstraintSubType::Hinge: {
            const HingeConstraint *h = static_cast<const HingeConstraint *>(c);
            return h->GetTotalLambdaPosition().Length() +
                   std::abs(h->GetTotalLambdaRotationLimits() + h->GetTotalLambdaMotor());
        }
        case EConstraintSubType::Slider: {
            const SliderConstraint *s = static_cast<const SliderConstraint *>(c);
            Vector<2> p = s->GetTotalLambdaPosition();
            return std::sqrt(p[0] * p[0] + p[1] * p[1]) +
                   std::abs(s->GetTotalLambdaPositionLimits() + s->GetTotalLambdaMotor());
        }
        case EConstraintSubType::Distance:
            return std::abs(static_cast<const DistanceConstraint *>(c)->GetTotalLambdaPosition());
        default:
            return 0.0f;
    }
}

// Joint `k` stops acting (it broke).
void js_joint_disable(JsWorld *w, uint32_t k) {
    if (w->joints[k] != nullptr) {
        w->joints[k]->SetEnabled(false);
    }
}

// A dynamic body's mass, its inertia about its centre of mass in its body frame (column-major
// 3x3) and its centre of mass in its body frame; false for a body that is not dynamic.
bool js_body_mass(const JsWorld *w, uint32_t i, float *mass, float inertia[9], float com[3]) {
    BodyLockRead lock(w->system.GetBodyLockInterfaceNoLock(), w->ids[i]);
    const Body &b = lock.GetBody();
    if (!b.IsDynamic()) {
        return false;
    }
    const MotionProperties *mp = b.GetMotionProperties();
    *mass = 1.0f / mp->GetInverseMass();
    Mat44 inv = mp->GetLocalSpaceInverseInertia();
    Mat44 m = inv.Inversed3x3();
    for (int c = 0; c < 3; ++c) {
        for (int r = 0; r < 3; ++r) {
            inertia[3 * c + r] = m(r, c);
        }
    }
    Vec3 c = b.GetShape()->GetCenterOfMass();
    com[0] = c.GetX();
    com[1] = c.GetY();
    com[2] = c.GetZ();
    return true;
}

}  // extern "C"
