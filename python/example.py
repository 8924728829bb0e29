# One Peggle episode with random aims, the same every run. Runs from any folder: python3 example.py
import gymnasium as gym
import peggle_gym  # registers "peggle_gym/Peggle-v0", "-v1", "PeggleEasy-v1", "PeggleHard-v1"; finds the engine

env = gym.make("peggle_gym/Peggle-v1", level="first-steps", render_mode="ansi")  # a bundled level, by name
obs, info = env.reset(seed=0)  # obs: float32 vector in [-1, 1]; info: score, balls_left, orange_left...
env.action_space.seed(0)       # the random aims too, so every run prints the same game
terminated = truncated = False
while not (terminated or truncated):  # one step is one shot, aimed by a float in [-1, 1] (plus v1's aim noise)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
print(env.render() + f"{info['status']}: score {info['score']} in {info['shots']} shots"); env.close()
