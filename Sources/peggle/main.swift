import PegglePhysics
import Foundation
func run() {
var obstacles: [Obstacle] = []
for r in 0..<10 { for c in 0..<12 { let x = 60.0 + (r % 2 == 1 ? 30 : 0) + 60.0 * Double(c); if x < 770 { obstacles.append(Obstacle(shape: .circle(center: Vec2(x, 150 + 40 * Double(r)), radius: 12))) } } }
let cfg = PhysicsConfig()
let shots = Int(CommandLine.arguments.dropFirst().first ?? "400")!
var world = PhysicsWorld(config: cfg, obstacles: obstacles)
let t0 = Date()
var total = 0
var hits = 0
for i in 0..<shots {
  let a = -1.3 + 2.6 * Double(i) / Double(shots - 1)
  world.spawnBall(position: Vec2(400, 20), velocity: Vec2(600 * Trig.sin(a), 600 * Trig.cos(a)))
  var steps = 0
  while world.activeBallCount > 0 && Double(steps) * cfg.timeStep < 30 { world.step(); steps += 1; hits += world.contacts.count }
  world.removeAllBalls()
  total += steps
}
let dt = Date().timeIntervalSince(t0)
print("steps \(total) mean \(Double(total)/Double(shots)) steps/s \(Double(total)/dt) contacts \(hits)")
}
run()
