print("modgud-bff")
